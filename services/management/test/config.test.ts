// The management host's configuration: its own variables refuse bad values naming the variable, and in production
// MANAGEMENT_URL is required of the management host only.
import { ConfigError } from '@svc/platform';
import { testEnv } from '@svc/testkit';
import { connectConfigFromEnv } from '../../connect/src/config';
import { managementConfigFromEnv } from '../src/config';

const problemsOf = (env: Record<string, string>) => {
  try {
    managementConfigFromEnv(testEnv(env));
    return '';
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return err.message;
  }
};

test.each([
  ['MANAGEMENT_BODY_LIMIT_BYTES', '10'],
  ['MANAGEMENT_BODY_LIMIT_BYTES', '1e6'],
  ['MANAGEMENT_RATE_LIMIT_PER_MINUTE', '0'],
  ['OPERATOR_KEY_CACHE_MS', '60000'],
  ['EVENTS_ALLOW_PRIVATE_TARGETS', 'maybe'],
  ['RATE_LIMIT_NAMESPACE', ':bad'],
])('%s=%s is refused, naming the variable', (name, value) => {
  expect(problemsOf({ [name]: value })).toContain(name);
});

test('defaults: 256 KiB bodies, 600 requests a minute per key, a 1 s key cache, port 4106', () => {
  const c = managementConfigFromEnv(testEnv());
  expect([c.bodyLimitBytes, c.rateLimitPerMinute, c.operatorKeyCacheMs, c.port]).toEqual([
    256 * 1024,
    600,
    1000,
    4106,
  ]);
});

test('production: the management host needs MANAGEMENT_URL; the other hosts do not', () => {
  const production = {
    NODE_ENV: 'production',
    KEY_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
    SUBJECT_SECRET: 'a-production-subject-secret',
    ISSUER_URL: 'https://id.example.test',
    CONNECT_URL: 'https://connect.example.test',
    NATIVE_URL: 'https://native.example.test',
    SESSION_URL: 'https://session.example.test',
    DEVICE_URL: 'https://device.example.test',
    OIDC_URL: 'https://oidc.example.test',
  };
  expect(problemsOf(production)).toContain('MANAGEMENT_URL');
  expect(problemsOf({ ...production, MANAGEMENT_URL: 'https://management.example.test' })).toBe('');
  expect(() => connectConfigFromEnv(testEnv(production))).not.toThrow();
});
