// The connect host's schema: the relying party follows CONNECT_URL, mail goes to SMTP_URL or SMTP_HOST/PORT, the
// Redis key prefix keeps today's names by default, and a bad value names its variable.
import { ConfigError } from '@svc/platform';
import { testEnv } from '@svc/testkit';
import { connectConfigFromEnv } from '../src/config';

test('the relying party, cookies and flow cookie follow CONNECT_URL', () => {
  const c = connectConfigFromEnv(testEnv({ CONNECT_URL: 'https://connect.example.com/' }));
  expect([c.connectUrl, c.rpId, c.origin, c.secureCookies, c.flowCookieName]).toEqual([
    'https://connect.example.com',
    'connect.example.com',
    'https://connect.example.com',
    true,
    '__Host-connect_flow',
  ]);
  expect(connectConfigFromEnv(testEnv()).secureCookies).toBe(false);
});

test('CONNECT_REDIS_PREFIX: default `connect`; the limits follow it unless RATE_LIMIT_NAMESPACE names theirs', () => {
  const of = (env: Record<string, string>) => {
    const c = connectConfigFromEnv(testEnv(env));
    return [c.redisPrefix, c.rateLimitNamespace, c.flowCookieName];
  };
  expect(of({})).toEqual(['connect', 'connect', 'connect_flow']);
  // The cookie keeps its name: only Redis keys move.
  expect(of({ CONNECT_REDIS_PREFIX: 'blue:connect' })).toEqual([
    'blue:connect',
    'blue:connect',
    'connect_flow',
  ]);
  expect(of({ CONNECT_REDIS_PREFIX: 'blue', RATE_LIMIT_NAMESPACE: 'rl' })).toEqual([
    'blue',
    'rl',
    'connect_flow',
  ]);
});

test('SMTP_URL wins; otherwise SMTP_HOST, SMTP_PORT and credentials', () => {
  expect(connectConfigFromEnv(testEnv({ SMTP_URL: 'smtp://127.0.0.1:2525' })).smtp).toBe(
    'smtp://127.0.0.1:2525',
  );
  expect(
    connectConfigFromEnv(
      testEnv({ SMTP_HOST: 'mail.internal', SMTP_PORT: '587', SMTP_USER: 'u', SMTP_PASS: 'p' }),
    ).smtp,
  ).toEqual({ host: 'mail.internal', port: 587, secure: false, auth: { user: 'u', pass: 'p' } });
});

test.each([
  ['SMTP_PORT', '0'],
  ['SMTP_URL', 'mail.internal:25'],
  ['SMTP_SECURE', 'yes'],
  ['INQUIRY_TTL_SECONDS', '10m'],
  ['ACCOUNT_REAUTH_SECONDS', '0'],
  ['RL_SIGN_IN_PER_IP', '0'],
  ['CONNECT_URL', 'connect.example.com'],
  ['CONNECT_REDIS_PREFIX', 'connect:*'],
  ['RATE_LIMIT_NAMESPACE', 'rl*'],
])('%s=%s is refused, naming the variable', (variable, value) => {
  let problems: { variable: string }[] = [];
  try {
    connectConfigFromEnv(testEnv({ [variable]: value }));
  } catch (err) {
    if (err instanceof ConfigError) problems = err.problems;
  }
  expect(problems.map((p) => p.variable)).toEqual([variable]);
});
