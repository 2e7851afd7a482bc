// credential_attempts_total{kind="email_code"} on the sign-in pages (libs/signin, here on connect), read from the
// host's /metrics: every typed sign-up code is counted once where it is checked: accepted (the right code),
// rejected (a wrong one) or limited (the per-address guess limit refused it before any comparison).
import { randomInt } from 'node:crypto';
import { createMetrics } from '@svc/platform';
import { makeAgent, provisionBackend, scrapeCounter, uniqueName } from '@svc/testkit';
import { useConnectHost } from './helpers';

// A registry of this file's own (the counts start at zero); the third guess from this address is the last allowed.
const metrics = createMetrics(uniqueName('connect-credentials'));
const config = {
  rateLimits: { codeSendPerIp: 1000, codeSendPerRecipient: 1000, codeVerifyPerIp: 3, signInPerIp: 1000 },
};
const cx = useConnectHost({ config, metrics });

jest.setTimeout(60_000);

const counts = async () => {
  const of = (outcome: string) =>
    scrapeCounter(metrics, 'credential_attempts_total', { kind: 'email_code', outcome });
  return { accepted: await of('accepted'), rejected: await of('rejected'), limited: await of('limited') };
};

/** A sign-up in progress: the page opened, a code mailed. */
async function pendingSignUp() {
  const backend = await provisionBackend(cx.infra, cx.host.url);
  const est = await backend.establish({ returnMethods: [{ type: 'REVEAL' }] });
  const path = `/inquiries/${est.body.exposureKey}`;
  const a = makeAgent(cx.host.url);
  await a.request(path);
  const email = `${uniqueName('attempts')}@example.test`;
  await a.form(`${path}/email`, { email });
  return { a, path, code: await cx.mailbox.codeFor(email) };
}

const wrong = (right: string) =>
  String((Number(right) + 1 + randomInt(999_998)) % 1_000_000).padStart(6, '0');

test('a wrong code rejected, the right one accepted, a guess past the per-address limit limited', async () => {
  const first = await pendingSignUp();
  expect((await first.a.form(`${first.path}/email/code`, { code: wrong(first.code) })).res.status).toBe(303);
  expect(await counts()).toEqual({ accepted: 0, rejected: 1, limited: 0 });
  expect((await first.a.form(`${first.path}/email/code`, { code: first.code })).res.status).toBe(303);
  expect((await first.a.request(first.path)).text).toContain('Create a passkey');
  expect(await counts()).toEqual({ accepted: 1, rejected: 1, limited: 0 });

  const second = await pendingSignUp();
  expect((await second.a.form(`${second.path}/email/code`, { code: wrong(second.code) })).res.status).toBe(
    303,
  );
  const limited = await second.a.form(`${second.path}/email/code`, { code: second.code });
  expect(limited.res.status).toBe(429);
  expect(await counts()).toEqual({ accepted: 1, rejected: 2, limited: 1 });
});
