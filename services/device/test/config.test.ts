// The device host's schema: DEVICE_URL must be able to carry verification URIs, its own numbers are bounded, and
// the polling leeway is shorter than the interval (else slow_down could never be answered).
import { configProblems, testEnv } from '@svc/testkit';
import { deviceConfigFromEnv } from '../src/config';

const problemsOf = (env: Record<string, string>) => configProblems(deviceConfigFromEnv, env);

test('defaults and a public HTTPS URL', () => {
  const c = deviceConfigFromEnv(testEnv({ DEVICE_URL: 'https://device.example.com/' }));
  expect([c.deviceUrl, c.codeTtlSeconds, c.pollIntervalSeconds, c.pollLeewayMs]).toEqual([
    'https://device.example.com',
    600,
    5,
    250,
  ]);
  // Today's Redis keys (`device:poll:…`, `device:flow:…`) and rate-limit namespace unless DEVICE_REDIS_PREFIX is set.
  expect([c.redisPrefix, c.pages.rateLimitNamespace, c.pages.flowCookieName]).toEqual([
    'device',
    'device:pages',
    '__Host-device_flow',
  ]);
  const blue = deviceConfigFromEnv(testEnv({ DEVICE_REDIS_PREFIX: 'blue:device' }));
  expect([blue.redisPrefix, blue.pages.rateLimitNamespace, blue.pages.flowCookieName]).toEqual([
    'blue:device',
    'blue:device:pages',
    'device_flow',
  ]);
});

test.each([
  [{ DEVICE_URL: 'http://device.example.com' }, 'DEVICE_URL', 'is neither HTTPS nor loopback HTTP'],
  [{ DEVICE_URL: 'https://user:pw@device.example.com' }, 'DEVICE_URL', 'carries credentials'],
  [{ DEVICE_URL: 'https://device.example.com/?x=1' }, 'DEVICE_URL', 'carries a query or fragment'],
  [{ DEVICE_URL: 'device.example.com' }, 'DEVICE_URL', 'must be an absolute URL (http:// or https://)'],
  [{ DEVICE_POLL_LEEWAY_MS: '-1' }, 'DEVICE_POLL_LEEWAY_MS', 'must be a whole number from 0 to 2147483647'],
  [
    { DEVICE_POLL_INTERVAL_SECONDS: '1', DEVICE_POLL_LEEWAY_MS: '1000' },
    'DEVICE_POLL_LEEWAY_MS',
    'must be less than DEVICE_POLL_INTERVAL_SECONDS',
  ],
  [
    { DEVICE_CODE_TTL_SECONDS: '0' },
    'DEVICE_CODE_TTL_SECONDS',
    'must be a whole number from 1 to 2147483647',
  ],
  [
    { DEVICE_REDIS_PREFIX: 'device pages' },
    'DEVICE_REDIS_PREFIX',
    'must be 1 to 100 letters, digits, -, _, . or :, not starting or ending with :',
  ],
])('%j is refused', (env, variable, problem) => {
  expect(problemsOf(env)).toEqual([{ variable, problem }]);
});
