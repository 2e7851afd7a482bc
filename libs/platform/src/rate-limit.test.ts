// The Redis rate limiter's three answers against the real Redis (REDIS_URL): an exhausted limit is 429
// TooManyAttempts with Retry-After; Redis unreachable is 503 TemporarilyUnavailable with Retry-After; anything else
// (here a key of the wrong type, as a key-prefix collision or a bug would leave it) is not a 503: the error goes
// on unchanged, so the host answers a bare 500 and logs it.
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { ServiceError } from './errors';
import { describeError, type HostAppOptions } from './http';
import { createLogger } from './logger';
import { createRateLimiter } from './rate-limit';
import { createRedis } from './redis';

const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const redis = createRedis(url);
afterAll(() => redis.quit());

const caught = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (err: unknown) => err,
  );

function hostOptions() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  const opts: HostAppOptions = { name: 'test', logger: createLogger('rate-limit-test', { destination }) };
  return { opts, lines };
}
const where = { method: 'POST', path: '/x' };

test('an exhausted limit is 429 TooManyAttempts with Retry-After', async () => {
  const limiter = createRateLimiter(redis, {
    keyPrefix: `t:${randomUUID()}`,
    points: 2,
    durationSeconds: 60,
    perAddress: false,
  });
  await limiter.consume('a');
  await limiter.consume('a', 'b');
  const err = await caught(limiter.consume('a', 'b'));
  expect(err).toBeInstanceOf(ServiceError);
  const answer = describeError(err, hostOptions().opts, where);
  expect(answer.status).toBe(429);
  expect(answer.body?.reason).toBe('TooManyAttempts');
  expect(Number(answer.headers['Retry-After'])).toBeGreaterThanOrEqual(1);
});

test('a per-address limit counts an IPv6 client by its /64, an IPv4 or IPv4-mapped client by its address', async () => {
  const limiter = createRateLimiter(redis, {
    keyPrefix: `t:${randomUUID()}`,
    points: 2,
    durationSeconds: 60,
    perAddress: true,
  });
  await limiter.consume('2001:db8:7:7::1');
  await limiter.consume('2001:db8:7:7::2');
  expect(await caught(limiter.consume('2001:db8:7:7:ffff::3'))).toBeInstanceOf(ServiceError);
  await limiter.consume('2001:db8:7:8::1');
  for (const address of ['192.0.2.1', '::ffff:192.0.2.2', '::ffff:192.0.2.3']) {
    await limiter.consume(address);
    await limiter.consume(address);
  }
  expect(await caught(limiter.consume('::ffff:192.0.2.2'))).toBeInstanceOf(ServiceError);
});

test('Redis unreachable is 503 TemporarilyUnavailable with Retry-After', async () => {
  // Nothing listens on port 1; no offline queue and no retries, so the command fails at once.
  const down = createRedis('redis://127.0.0.1:1', { lazy: true });
  down.options.enableOfflineQueue = false;
  down.options.maxRetriesPerRequest = 0;
  down.options.retryStrategy = () => null;
  down.on('error', () => undefined);
  try {
    const limiter = createRateLimiter(down, {
      keyPrefix: `t:${randomUUID()}`,
      points: 5,
      durationSeconds: 60,
      perAddress: false,
    });
    const err = await caught(limiter.consume('a'));
    expect(err).toBeInstanceOf(ServiceError);
    const answer = describeError(err, hostOptions().opts, where);
    expect([answer.status, answer.body?.reason, answer.headers['Retry-After']]).toEqual([
      503,
      'TemporarilyUnavailable',
      '1',
    ]);
  } finally {
    down.disconnect();
  }
});

test('any other failure is a bare 500, logged, never a 503 or a 429', async () => {
  const prefix = `t:${randomUUID()}`;
  // The limiter's key already holds a hash: Redis answers WRONGTYPE, which is no outage.
  await redis.hset(`rl:${prefix}:a`, 'field', 'value');
  try {
    const limiter = createRateLimiter(redis, {
      keyPrefix: prefix,
      points: 5,
      durationSeconds: 60,
      perAddress: false,
    });
    const err = await caught(limiter.consume('a'));
    expect(err).toBeDefined();
    expect(err).not.toBeInstanceOf(ServiceError);
    expect(String((err as Error).message)).toMatch(/WRONGTYPE/);
    const { opts, lines } = hostOptions();
    const answer = describeError(err, opts, where);
    expect(answer).toEqual({ status: 500, headers: {} });
    expect(lines.some((l) => l.msg === 'unhandled error' && l.level === 50)).toBe(true);
  } finally {
    await redis.del(`rl:${prefix}:a`);
  }
});
