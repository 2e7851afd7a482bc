// credential_attempts_total{kind="email_code"} on the OIDC host's sign-in pages (libs/signin, bound with the host's
// metrics), read from the host's /metrics: a wrong code rejected, the right one accepted, a guess past the
// per-address limit (RL_CODE_VERIFY_PER_IP) limited.
import { randomInt } from 'node:crypto';
import { type Mailbox, makeAgent, scrapeCounter, startMailbox, uniqueName } from '@svc/testkit';
import { authorizeRequestUrl, type OidcPagesHost, provisionRelyingParty, startOidcPages } from './pages-kit';

jest.setTimeout(60_000);

let mailbox: Mailbox;
let host: OidcPagesHost;

beforeAll(async () => {
  mailbox = await startMailbox();
  // The host's own registry (the counts start at zero); the third guess from this address is refused.
  host = await startOidcPages({ smtpPort: mailbox.port, env: { RL_CODE_VERIFY_PER_IP: '2' } });
});
afterAll(async () => {
  await host?.close();
  await mailbox?.close();
});

const counts = async () => {
  const of = (outcome: string) =>
    scrapeCounter(host.deps.metrics!, 'credential_attempts_total', { kind: 'email_code', outcome });
  return { accepted: await of('accepted'), rejected: await of('rejected'), limited: await of('limited') };
};

const wrong = (right: string) =>
  String((Number(right) + 1 + randomInt(999_998)) % 1_000_000).padStart(6, '0');

/** A browser on a fresh interaction that asked for a sign-up code: its path and the code mailed. */
async function pendingSignUp() {
  const rp = await provisionRelyingParty(host, { redirectUris: [`https://${uniqueName('rp')}.example/cb`] });
  const a = makeAgent(host.url);
  const parked = await a.request(authorizeRequestUrl(host.url, rp));
  const path = new URL(parked.res.headers.get('location') ?? '', host.url).pathname;
  expect(path).toMatch(/^\/interaction\/[^/]+$/);
  await a.request(`${path}?lang=en-US`);
  const email = `${uniqueName('oidc-attempts')}@example.test`;
  expect((await a.form(`${path}/email`, { email })).res.status).toBe(303);
  return { a, path, code: await mailbox.codeFor(email) };
}

test('a wrong code rejected, the right one accepted, a guess past the limit limited', async () => {
  const first = await pendingSignUp();
  expect((await first.a.form(`${first.path}/email/code`, { code: wrong(first.code) })).res.status).toBe(303);
  expect(await counts()).toEqual({ accepted: 0, rejected: 1, limited: 0 });
  expect((await first.a.form(`${first.path}/email/code`, { code: first.code })).res.status).toBe(303);
  expect(await counts()).toEqual({ accepted: 1, rejected: 1, limited: 0 });

  const second = await pendingSignUp();
  expect((await second.a.form(`${second.path}/email/code`, { code: second.code })).res.status).toBe(429);
  expect(await counts()).toEqual({ accepted: 1, rejected: 1, limited: 1 });
});
