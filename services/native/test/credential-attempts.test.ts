// credential_attempts_total{kind="access_key"|"public_key"} on the direct-issue endpoints, read from the host's
// /metrics: every attempt counted once where it is decided: accepted (the credential proved itself), rejected (a
// malformed or wrong secret, a signature by another key, a replayed assertion) or limited (TooManyAttempts before
// any check); an unknown application is no credential attempt.
import { randomBytes } from 'node:crypto';
import { createMetrics, type Metrics } from '@svc/platform';
import { postJson, provisionApp, type RunningTestHost, scrapeCounter, uniqueName } from '@svc/testkit';
import { generateKeyPair } from 'jose';
import {
  accessKeyFor,
  publicKeyFixture,
  sendPublicKey,
  settledAccount,
  signAssertion,
  startNative,
  useNativeHost,
} from './helpers';

const n = useNativeHost();
let host: RunningTestHost;
let metrics: Metrics;

beforeAll(async () => {
  // A registry of this file's own (the counts start at zero) and limits that refuse a credential's fourth attempt.
  metrics = createMetrics(uniqueName('native-credentials'));
  const rateLimit = { prefix: uniqueName('rl'), addressPoints: 1000, credentialPoints: 3, windowSeconds: 60 };
  host = await startNative(n.infra, { rateLimit }, { metrics });
});
afterAll(async () => {
  await host?.close();
});

const counts = async (kind: string) => ({
  accepted: await scrapeCounter(metrics, 'credential_attempts_total', { kind, outcome: 'accepted' }),
  rejected: await scrapeCounter(metrics, 'credential_attempts_total', { kind, outcome: 'rejected' }),
  limited: await scrapeCounter(metrics, 'credential_attempts_total', { kind, outcome: 'limited' }),
});

test('access keys: malformed and wrong secrets rejected, the right one accepted, the fourth limited', async () => {
  const app = await provisionApp(n.infra, { methods: ['ACCESS_KEY_DIRECT'] });
  const account = await settledAccount(n.infra);
  const key = await accessKeyFor(n.infra, app.anchor, account.id);
  const send = (accessKeySecret: string, applicationAnchor = app.anchor) =>
    postJson(`${host.url}/direct-issue/access-key`, {
      applicationAnchor,
      accessKeyIdentifier: key.accessKeyIdentifier,
      accessKeySecret,
    });
  const wrong = `acs_t_${randomBytes(32).toString('hex')}`;

  expect((await send('acs_t_short')).body?.reason).toBe('InvalidAccessKeySecret');
  expect((await send(wrong)).body?.reason).toBe('AccessKeyDirectDenied');
  expect(await counts('access_key')).toEqual({ accepted: 0, rejected: 2, limited: 0 });

  expect((await send(key.accessKeySecret)).status).toBe(200);
  expect(await counts('access_key')).toEqual({ accepted: 1, rejected: 2, limited: 0 });

  // Not a credential decision: the application does not exist (it still spends the key's third point).
  expect((await send(key.accessKeySecret, uniqueName('no-such-app'))).body?.reason).toBe(
    'ApplicationNotFound',
  );
  expect(await counts('access_key')).toEqual({ accepted: 1, rejected: 2, limited: 0 });

  expect((await send(key.accessKeySecret)).body?.reason).toBe('TooManyAttempts');
  expect(await counts('access_key')).toEqual({ accepted: 1, rejected: 2, limited: 1 });
});

test('public keys: a signature by another key and a replay rejected, a fresh assertion accepted, the fourth limited', async () => {
  const f = await publicKeyFixture(n.infra);
  const jti = randomBytes(16).toString('base64url');

  expect((await sendPublicKey(host, f, { jti })).status).toBe(200);
  expect(await counts('public_key')).toEqual({ accepted: 1, rejected: 0, limited: 0 });

  expect((await sendPublicKey(host, f, { jti })).body?.reason).toBe('PublicKeyAssertionReplayed');
  const other = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
  const forged = await signAssertion(other.privateKey, f.cred.kid, f.body);
  const denied = await postJson(`${host.url}/direct-issue/public-key`, f.body, {
    authorization: `PublicKey ${forged}`,
  });
  expect(denied.body?.reason).toBe('PublicKeyDirectDenied');
  expect(await counts('public_key')).toEqual({ accepted: 1, rejected: 2, limited: 0 });

  expect((await sendPublicKey(host, f)).body?.reason).toBe('TooManyAttempts');
  expect(await counts('public_key')).toEqual({ accepted: 1, rejected: 2, limited: 1 });
});
