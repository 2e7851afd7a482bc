// A Redis failure a request survives is counted before it is tolerated: with the host's Redis stalled (a fault proxy
// in front of the real one), POST /logout still revokes (PostgreSQL holds it) and the session-change notice that
// could not be published raises redis_failures_total{operation="session_change_publish"}; with Redis passing,
// nothing is counted.
import { BUSINESS_METRICS, type Metrics } from '@svc/platform';
import { type FaultProxy, postJson, startFaultProxy, testUrls } from '@svc/testkit';
import { freshSession, type SessionHarness, startSessionHost } from './support';

let proxy: FaultProxy;
let h: SessionHarness;

beforeAll(async () => {
  const redis = new URL(testUrls.redis);
  proxy = await startFaultProxy({ host: redis.hostname, port: Number(redis.port || 6379) });
  // Only Redis goes through the proxy; PostgreSQL is reached directly.
  h = await startSessionHost({ REDIS_URL: proxy.urlFor(testUrls.redis), SESSION_CACHE_MS: '0' });
});

afterAll(async () => {
  await h.close();
  await proxy.close();
});

async function redisFailures(metrics: Metrics, operation: string): Promise<number> {
  const metric = await metrics.registry.getSingleMetric(BUSINESS_METRICS.redisFailures)?.get();
  return metric?.values.find((v) => v.labels.operation === operation)?.value ?? 0;
}

test('a logout with Redis passing counts no failure', async () => {
  const before = await redisFailures(h.deps.metrics, 'session_change_publish');
  const { issued } = await freshSession(h.infra);
  const res = await postJson(`${h.url}/logout`, { refreshToken: issued.refreshToken });
  expect([res.status, res.body]).toEqual([200, { revoked: true }]);
  expect(await redisFailures(h.deps.metrics, 'session_change_publish')).toBe(before);
});

test('a logout with Redis stalled still revokes, and the unpublished notice is counted by operation', async () => {
  const { issued } = await freshSession(h.infra);
  const before = await redisFailures(h.deps.metrics, 'session_change_publish');
  // Stalled: the connection stays open and answers nothing, so the publish fails on its command timeout (a cut
  // would also set the host's dependency watch probing, on timers of its own).
  proxy.stall();
  try {
    const res = await postJson(`${h.url}/logout`, { refreshToken: issued.refreshToken });
    expect([res.status, res.body]).toEqual([200, { revoked: true }]);
    expect(await redisFailures(h.deps.metrics, 'session_change_publish')).toBe(before + 1);
  } finally {
    await proxy.pass();
  }
  // PostgreSQL holds the revocation: the token no longer refreshes.
  const again = await postJson(`${h.url}/refresh`, { refreshToken: issued.refreshToken });
  expect(again.body.reason).toBe('RefreshTokenRevoked');
});
