// claimOnce against the real single Redis (REDIS_URL, no replica): claimed once, then refused; with replicas asked
// for and none there, the claim is not honoured (a dependency failure, the host's 503) and is released so that the
// unused credential can be presented again.
import { randomUUID } from 'node:crypto';
import { isDependencyFailure } from './dependencies';
import { createRedis } from './redis';
import { claimOnce, UnreplicatedClaimError } from './single-use-claim';

const redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
afterAll(() => redis.quit());

const caught = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (err: unknown) => err,
  );

test('a key is claimed once, with its expiry', async () => {
  const key = `t:claim:${randomUUID()}`;
  const none = { replicas: 0, waitMs: 50 };
  expect(await claimOnce(redis, key, 30.2, none)).toBe(true);
  expect(await claimOnce(redis, key, 30, none)).toBe(false);
  const ttl = await redis.ttl(key);
  expect(ttl).toBeGreaterThan(25);
  expect(ttl).toBeLessThanOrEqual(31);
  // At least a second even when the caller's expiry rounds to nothing.
  const short = `t:claim:${randomUUID()}`;
  expect(await claimOnce(redis, short, 0, none)).toBe(true);
  expect(await redis.ttl(short)).toBe(1);
});

test('a claim no replica acknowledged is a dependency failure and is released', async () => {
  const key = `t:claim:${randomUUID()}`;
  const started = Date.now();
  const err = await caught(claimOnce(redis, key, 30, { replicas: 1, waitMs: 50 }));
  expect(err).toBeInstanceOf(UnreplicatedClaimError);
  expect(isDependencyFailure(err)).toBe(true);
  expect((err as Error).message).toBe('claim acknowledged by 0 of 1 replicas');
  // WAIT waited its timeout on the server, not the command bound.
  expect(Date.now() - started).toBeGreaterThanOrEqual(45);
  expect(await redis.exists(key)).toBe(0);
  // Claimed already (here by another replica of the host): refused as seen, whatever WAIT would have said.
  expect(await claimOnce(redis, key, 30, { replicas: 0, waitMs: 50 })).toBe(true);
  expect(await claimOnce(redis, key, 30, { replicas: 1, waitMs: 50 })).toBe(false);
});
