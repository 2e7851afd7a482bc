// The worker's schema: the key schedule's windows nest, the hosts' key cache lifetime (KEY_CACHE_TTL_MS) is read
// for how long a retired key stays published, retention may be 0 but never negative, and every bad value names its
// variable.
import { configProblems, testEnv } from '@svc/testkit';
import { workerConfigFromEnv } from '../src/config';

const problemsOf = (env: Record<string, string>) => configProblems(workerConfigFromEnv, env);

test('defaults: rotation checked every 300 s within a 24 h prepublication', () => {
  const c = workerConfigFromEnv(testEnv());
  expect(c.keySchedule).toEqual({
    rotateEverySeconds: 2_592_000,
    prepublishSeconds: 86_400,
    keyCacheTtlMs: 30_000,
  });
  // The hosts' key cache lifetime: how long a retired key stays published past any signer a host may still hold.
  expect(workerConfigFromEnv(testEnv({ KEY_CACHE_TTL_MS: '3600000' })).keySchedule.keyCacheTtlMs).toBe(
    3_600_000,
  );
  expect([c.rotationCheckMs, c.sweepEveryMs, c.retention.receiptSeconds]).toEqual([
    300_000, 60_000, 94_608_000,
  ]);
  // A short prepublication shortens the default check interval with it.
  expect(workerConfigFromEnv(testEnv({ KEY_PREPUBLISH_SECONDS: '120' })).rotationCheckMs).toBe(120_000);
  expect(workerConfigFromEnv(testEnv({ SESSION_RETENTION_SECONDS: '0' })).retention.sessionSeconds).toBe(0);
  expect(c.retention.auditDays).toBe(365);
});

test.each([
  [{ KEY_PREPUBLISH_SECONDS: '0' }, 'KEY_PREPUBLISH_SECONDS', 'must be a whole number from 1 to 2147483647'],
  [
    { KEY_PREPUBLISH_SECONDS: '7200', KEY_ROTATE_EVERY_SECONDS: '3600' },
    'KEY_PREPUBLISH_SECONDS',
    'must be shorter than KEY_ROTATE_EVERY_SECONDS',
  ],
  [
    { KEY_PREPUBLISH_SECONDS: '600', KEY_ROTATION_CHECK_SECONDS: '900' },
    'KEY_ROTATION_CHECK_SECONDS',
    'must not exceed KEY_PREPUBLISH_SECONDS',
  ],
  [
    { SESSION_RETENTION_SECONDS: '-1' },
    'SESSION_RETENTION_SECONDS',
    'must be a whole number from 0 to 2147483647',
  ],
  [{ AUDIT_RETENTION_DAYS: '0' }, 'AUDIT_RETENTION_DAYS', 'must be a whole number from 1 to 2147483647'],
  [{ KEY_CACHE_TTL_MS: '1.5' }, 'KEY_CACHE_TTL_MS', 'must be a whole number from 0 to 2147483647'],
  [{ KEY_CACHE_TTL_MS: '-1' }, 'KEY_CACHE_TTL_MS', 'must be a whole number from 0 to 2147483647'],
  [{ WORKER_CONCURRENCY: '2.5' }, 'WORKER_CONCURRENCY', 'must be a whole number from 1 to 2147483647'],
  [{ METRICS_BIND_HOST: '0.0.0.0:9464' }, 'METRICS_BIND_HOST', 'must be an IP address or a host name'],
  [{ JOB_ATTEMPTS: '' }, undefined, undefined],
])('%j', (env, variable, problem) => {
  if (variable === undefined) {
    expect(() => workerConfigFromEnv(testEnv(env))).not.toThrow();
    return;
  }
  expect(problemsOf(env)).toEqual([{ variable, problem }]);
});
