// The OIDC host's schema: the Redis key prefix of its own state keeps today's names by default and moves every key
// of the host (not its cookies) when set; the rate limits follow it unless RATE_LIMIT_NAMESPACE names theirs; a bad
// value names its variable.
import { configProblems, testEnv } from '@svc/testkit';
import { oidcConfigFromEnv } from '../src/config';
import { signinConfig } from '../src/pages-config';

const problemsOf = (env: Record<string, string>) => configProblems(oidcConfigFromEnv, env);

test('OIDC_REDIS_PREFIX: default `oidc`; the limits follow it unless RATE_LIMIT_NAMESPACE names theirs', () => {
  const of = (env: Record<string, string>) => {
    const c = oidcConfigFromEnv(testEnv({ OIDC_URL: 'https://id.example.com', ...env }));
    return [
      c.oidc.redisPrefix,
      c.pages.rateLimitNamespace,
      signinConfig(c.pages, c.oidc.oidcUrl).flowCookieName,
    ];
  };
  expect(of({})).toEqual(['oidc', 'oidc', '__Host-oidc_flow']);
  // The cookie keeps its name: only Redis keys move.
  expect(of({ OIDC_REDIS_PREFIX: 'blue:oidc' })).toEqual(['blue:oidc', 'blue:oidc', '__Host-oidc_flow']);
  expect(of({ OIDC_REDIS_PREFIX: 'blue', RATE_LIMIT_NAMESPACE: 'rl' })).toEqual([
    'blue',
    'rl:oidc',
    '__Host-oidc_flow',
  ]);
});

test.each([
  [{ OIDC_REDIS_PREFIX: 'oidc:' }, 'OIDC_REDIS_PREFIX'],
  [{ OIDC_REDIS_PREFIX: 'oidc[1]' }, 'OIDC_REDIS_PREFIX'],
  [{ OIDC_AUTHORIZE_RATE_PER_MINUTE: '0' }, 'OIDC_AUTHORIZE_RATE_PER_MINUTE'],
  [{ OIDC_REGISTRATION: 'open' }, 'OIDC_REGISTRATION'],
  [{ OIDC_REGISTRATION_RATE_PER_MINUTE: '0' }, 'OIDC_REGISTRATION_RATE_PER_MINUTE'],
  [{ OIDC_URL: 'id.example.com' }, 'OIDC_URL'],
  // Over a day, one retired key in the JWK Set could no longer cover every ID token still valid.
  [{ OIDC_ID_TOKEN_TTL_SECONDS: '86401' }, 'OIDC_ID_TOKEN_TTL_SECONDS'],
  // The device grant shares the device host's settings and the same rules.
  [{ DEVICE_POLL_INTERVAL_SECONDS: '0' }, 'DEVICE_POLL_INTERVAL_SECONDS'],
  [{ DEVICE_POLL_LEEWAY_MS: '5000' }, 'DEVICE_POLL_LEEWAY_MS'],
  [{ DEVICE_REDIS_PREFIX: 'device:' }, 'DEVICE_REDIS_PREFIX'],
  [{ DEVICE_URL: 'https://device.example.com/?x' }, 'DEVICE_URL'],
])('%j is refused, naming the variable', (env, variable) => {
  expect(problemsOf(env).map((p) => p.variable)).toEqual([variable]);
});

test('production refuses an http OIDC_URL or ISSUER_URL off loopback, naming the variable', () => {
  const production = {
    NODE_ENV: 'production',
    KEY_ENCRYPTION_KEY: Buffer.alloc(32, 5).toString('base64'),
    SUBJECT_SECRET: 'a-long-enough-subject-secret',
    ...Object.fromEntries(
      ['CONNECT', 'NATIVE', 'SESSION', 'DEVICE'].map((h) => [
        `${h}_URL`,
        `https://${h.toLowerCase()}.example.com`,
      ]),
    ),
    OIDC_URL: 'https://oidc.example.com',
  };
  expect(problemsOf({ ...production, OIDC_URL: 'http://oidc.example.com' }).map((p) => p.variable)).toEqual([
    'OIDC_URL',
  ]);
  expect(problemsOf({ ...production, ISSUER_URL: 'http://id.example.com' }).map((p) => p.variable)).toEqual([
    'ISSUER_URL',
  ]);
  expect(oidcConfigFromEnv(testEnv(production)).oidc.oidcUrl).toBe('https://oidc.example.com');
  expect(oidcConfigFromEnv(testEnv({ ...production, OIDC_URL: 'http://localhost:4105' })).oidc.oidcUrl).toBe(
    'http://localhost:4105',
  );
});
