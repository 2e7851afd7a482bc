// The sign-in pages' server-side sessions against the real Redis (REDIS_URL), two connections standing for two
// replicas: issued ids only, rotation that retires the old id, writes refused under a gone id, and guesses
// counted atomically before any comparison.
import { randomBytes } from 'node:crypto';
import { settableClock, testUrls } from '@svc/testkit';
import type { Redis } from 'ioredis';
import { createBrowserSessionStore, sessionCookie } from './browser-session';
import { createRedis } from './redis';

let one: Redis;
let two: Redis;
const namespace = `bs-test-${randomBytes(6).toString('hex')}`;
const store = (r: Redis) =>
  createBrowserSessionStore(r, { namespace, ttlSeconds: 60, clock: settableClock() });

beforeAll(() => {
  one = createRedis(testUrls.redis);
  two = createRedis(testUrls.redis);
});
afterAll(async () => {
  const keys = await one.keys(`${namespace}:*`);
  if (keys.length) await one.del(...keys);
  one.disconnect();
  two.disconnect();
});

test('only issued ids are accepted; invented, malformed and empty ones are not', async () => {
  const s = store(one);
  const id = await s.issue();
  expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);
  expect(await s.isIssued(id)).toBe(true);
  expect(await store(two).isIssued(id)).toBe(true);
  expect(await s.isIssued(randomBytes(32).toString('base64url'))).toBe(false);
  expect(await s.isIssued('short')).toBe(false);
  expect(await s.isIssued('')).toBe(false);
  // Writing under an id the host never issued creates nothing.
  const invented = randomBytes(32).toString('base64url');
  expect(await s.write(invented, { a: '1' })).toBe(false);
  expect(await s.isIssued(invented)).toBe(false);
});

test('rotation moves the session to a new id; the old one reads nothing and cannot write', async () => {
  const s = store(one);
  const id = await s.issue();
  expect(await s.write(id, { target: 'state' })).toBe(true);
  const next = await store(two).rotate(id);
  expect(next).toBeDefined();
  expect(next).not.toBe(id);
  expect(await s.read(next!, 'target')).toBe('state');
  expect(await s.isIssued(id)).toBe(false);
  expect(await s.read(id, 'target')).toBeUndefined();
  expect(await s.write(id, { target: 'replayed' })).toBe(false);
  expect(await s.isIssued(id)).toBe(false);
  expect(await s.rotate(id)).toBeUndefined();
  await s.end(next!);
  expect(await s.isIssued(next!)).toBe(false);
  expect(await s.write(next!, { target: 'after sign-out' })).toBe(false);
});

test('twenty concurrent rotations of one id on two connections: exactly one succeeds', async () => {
  const id = await store(one).issue();
  const results = await Promise.all(
    Array.from({ length: 20 }, (_, i) => store(i % 2 ? one : two).rotate(id)),
  );
  expect(results.filter(Boolean)).toHaveLength(1);
});

test('guesses are counted before comparing: fifty at once, exactly five see the value', async () => {
  const s = store(one);
  for (let round = 0; round < 5; round++) {
    const id = await s.issue();
    await s.write(id, { code: 'secret', guesses: '0' });
    const seen = await Promise.all(
      Array.from({ length: 50 }, (_, i) => store(i % 2 ? one : two).guess(id, 'code', 'guesses', 5)),
    );
    const attempts = seen.filter(Boolean).map((g) => g!.attempt);
    expect(attempts.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5]);
    expect(await s.read(id, 'code')).toBeUndefined();
    expect(await s.guess(id, 'code', 'guesses', 5)).toBeUndefined();
  }
});

test('takeIf consumes a value once, and only while it is the expected one', async () => {
  const s = store(one);
  const id = await s.issue();
  await s.write(id, { code: 'v1' });
  const wins = await Promise.all(
    Array.from({ length: 20 }, (_, i) => store(i % 2 ? one : two).takeIf(id, 'code', 'v1')),
  );
  expect(wins.filter(Boolean)).toHaveLength(1);
  await s.write(id, { code: 'v2' });
  expect(await s.takeIf(id, 'code', 'v1')).toBe(false);
  expect(await s.read(id, 'code')).toBe('v2');
  expect(await s.take(id, 'code')).toBe('v2');
  expect(await s.take(id, 'code')).toBeUndefined();
});

test('sessionCookie: __Host- and Secure over HTTPS, the plain name on loopback HTTP', () => {
  expect(sessionCookie('flow', true)).toEqual({
    name: '__Host-flow',
    options: { httpOnly: true, sameSite: 'lax', secure: true, path: '/' },
  });
  expect(sessionCookie('flow', false).name).toBe('flow');
  expect(sessionCookie('flow', false).options.secure).toBe(false);
});
