// Redis behind Sentinel (a primary and a replica, started here on ports 17010-17012): the one connection factory
// finds the primary through Sentinel, and after the primary dies it follows the promoted replica without a new
// connection, within 10 s of the promotion; commands meanwhile fail (bounded), never hang.
import { closeRedis, createRedis } from '@svc/platform';
import { type SentinelEngine, startSentinel, trackRunning, uniqueName, waitFor } from '@svc/testkit';

let engine: SentinelEngine;
beforeAll(async () => {
  engine = await startSentinel();
}, 60_000);
afterAll(async () => {
  await engine?.stop();
});

test('follows a promoted replica without restart', async () => {
  const [host, port] = engine.sentinels.split(':');
  const made = trackRunning();
  const redis = createRedis({
    mode: 'sentinel',
    sentinels: [{ host: host!, port: Number(port) }],
    master: engine.master,
    auth: { tls: false },
  });
  try {
    const key = uniqueName('k');
    await redis.set(key, 'before');
    await waitFor('replicated', async () => (await redis.wait(1, 1000)) >= 1);
    await engine.primary.kill();
    await waitFor('promotion', () => engine.primaryPort() === engine.replica.port, 30_000);
    const promotedAt = Date.now();
    await waitFor(
      'the client on the new primary',
      async () => (await redis.set(key, 'after')) === 'OK',
      10_000,
    );
    expect(Date.now() - promotedAt).toBeLessThan(10_000);
    expect(await redis.get(key)).toBe('after');
  } finally {
    await closeRedis(redis);
  }
  // Closed after a failover, it leaves nothing running: no socket of its failover detector, no timer of ioredis's
  // (before: a 2 s disconnect timer for each connection the failover had closed already kept Jest from exiting).
  try {
    expect(await made.leftRunning()).toEqual([]);
  } finally {
    made.stop();
  }
});
