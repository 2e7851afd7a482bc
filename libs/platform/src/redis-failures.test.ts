// A tolerated Redis failure is counted before its fallback is answered: on the metrics its connection was opened
// with (a store's case) or on the metrics given (a domain function's); a call that succeeds counts nothing.
import net from 'node:net';
import { BUSINESS_METRICS, createMetrics, type Metrics } from './metrics';
import { createRedis } from './redis';
import { toleratedRedisFailure } from './redis-failures';

async function failures(metrics: Metrics, operation: string): Promise<number> {
  const metric = await metrics.registry.getSingleMetric(BUSINESS_METRICS.redisFailures)?.get();
  return metric?.values.find((v) => v.labels.operation === operation)?.value ?? 0;
}

/** A port nothing listens on: one the system handed out, closed again. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

test('a failed call on a connection opened with metrics is counted there, with its operation, then tolerated', async () => {
  const metrics = createMetrics('test');
  const redis = createRedis(`redis://127.0.0.1:${await closedPort()}`, {
    metrics,
    oneShot: true,
    lazy: true,
  });
  try {
    const answer = await redis.exists('k').catch(toleratedRedisFailure(redis, 'unanswered_rotation_read', 0));
    expect(answer).toBe(0);
    expect(await failures(metrics, 'unanswered_rotation_read')).toBe(1);
    expect(await failures(metrics, 'session_change_publish')).toBe(0);
  } finally {
    redis.disconnect();
  }
});

test('the metrics given are counted on; a call that succeeds counts nothing', async () => {
  const metrics = createMetrics('test');
  const failing = () => Promise.reject(new Error('connect ECONNREFUSED'));
  await failing().catch(toleratedRedisFailure(metrics, 'device_poll_mark_final', undefined));
  await Promise.resolve('OK').catch(toleratedRedisFailure(metrics, 'device_poll_mark_final', undefined));
  expect(await failures(metrics, 'device_poll_mark_final')).toBe(1);
});
