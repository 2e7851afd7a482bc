// Polling state of device authorizations in Redis, so a pending poll (the hot path: every waiting device, every
// few seconds) is one Redis round trip and no PostgreSQL at all. One hash per authorization under its device-code
// hash, written at /device-authorize: `i` the current interval (seconds), `e` the expiry (ms), `l` the time of the
// last poll that was not refused as too fast (ms), `d` "decided: ask PostgreSQL" (set before a decision is written
// there, so a poll can never miss one), `x` a final outcome (`consumed`, `denied`) once PostgreSQL holds it, `o` the
// owner (the OIDC client the code was issued to; none on the spec's wire, where the code alone is the bearer).
// PostgreSQL stays the truth: a missing hash (Redis lost it) sends the poll to PostgreSQL, which seeds it again.
// A poll Redis runs after the host gave up on it changes nothing (redis-deadline.ts): a 503 leaves the state as it was.
import { DependencyTimeoutError } from '@svc/platform';
import type { Redis } from 'ioredis';
import type { PollingStore, PollVerdict } from '../domain/ports';
import { type RedisDeadlines, redisDeadlines } from './redis-deadline';

/**
 * The poll, atomically on the hash. Final outcomes first (a consumed code is invalid_request whatever its age),
 * then expiry, then the interval: a poll sooner than the interval after the last accepted poll is slow_down, the
 * interval grows by 5 s (to at most the cap) and stays grown; the refused poll does not move the last-poll time, so
 * a client that waits the new interval from its previous accepted poll, or from the refusal, is on time. The first
 * poll has no last-poll time and is never throttled. An accepted poll records its time and answers pending, or
 * "ask" when a decision is (being) written.
 *
 * Before anything, Redis's own time against the poll's deadline: a poll that runs after it (the host answered 503
 * and the client was told to come back) touches nothing and says so. Then the owner: a poll by anyone but the
 * owner the hash records (another OIDC client) touches nothing and is told so, before any other state is looked at,
 * so it can neither learn the authorization's state nor push its owner into slow_down. A hash seeded before owners
 * were recorded is "decided" to an owned poll, untouched: PostgreSQL judges the client, and its reseed records the
 * owner.
 *
 * KEYS[1] the hash; ARGV now (ms, the host's clock), leeway (ms), step (s), cap (s), deadline (ms, Redis's clock),
 * the polling owner ('' for none).
 * Returns {code, interval, Redis time in ms}: 0 unknown, 1 pending, 2 slow_down, 3 expired, 4 consumed, 5 denied,
 * 6 decided, 7 too late, 8 another owner's.
 */
const POLL_SCRIPT = `
local t = redis.call('TIME')
local clock = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if clock > tonumber(ARGV[5]) then return {7, 0, clock} end
local h = redis.call('HMGET', KEYS[1], 'i', 'e', 'l', 'd', 'x', 'o')
if h[6] and h[6] ~= ARGV[6] then return {8, 0, clock} end
if ARGV[6] ~= '' and h[1] and not h[6] then return {6, 0, clock} end
if h[5] == 'consumed' then return {4, 0, clock} end
if not h[1] then return {0, 0, clock} end
local now = tonumber(ARGV[1])
if tonumber(h[2]) <= now then return {3, 0, clock} end
if h[5] == 'denied' then return {5, 0, clock} end
local interval = tonumber(h[1])
if h[3] and now - tonumber(h[3]) < interval * 1000 - tonumber(ARGV[2]) then
  interval = math.min(interval + tonumber(ARGV[3]), math.max(interval, tonumber(ARGV[4])))
  redis.call('HSET', KEYS[1], 'i', interval)
  return {2, interval, clock}
end
redis.call('HSET', KEYS[1], 'l', now)
if h[4] then return {6, interval, clock} end
return {1, interval, clock}
`;

/**
 * Seeds a hash unless one exists (HSETNX on `i` decides), with the expiry and owner (ARGV[5], '' for none); the hash
 * outlives it by `keepMs`. The owner is set even on a hash a mark recreated (it has no `i`), never changed once set.
 */
const SEED_SCRIPT = `
if redis.call('HSETNX', KEYS[1], 'i', ARGV[1]) == 1 then
  redis.call('HSET', KEYS[1], 'e', ARGV[2])
  if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'l', ARGV[3]) end
end
if ARGV[5] ~= '' then redis.call('HSETNX', KEYS[1], 'o', ARGV[5]) end
redis.call('PEXPIREAT', KEYS[1], tonumber(ARGV[2]) + tonumber(ARGV[4]))
return 1
`;

/** Sets one field and the hash's expiry (creating the hash when Redis lost it, so the mark is never lost). */
const MARK_SCRIPT = `
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('PEXPIREAT', KEYS[1], tonumber(ARGV[3]) + tonumber(ARGV[4]))
return 1
`;

interface PollingRedis extends Redis {
  devicePoll(
    key: string,
    now: number,
    leeway: number,
    step: number,
    cap: number,
    deadline: number,
    owner: string,
  ): Promise<[number, number, number]>;
  deviceSeed(
    key: string,
    interval: number,
    expiresAt: number,
    lastPoll: string,
    keepMs: number,
    owner: string,
  ): Promise<number>;
  deviceMark(key: string, field: string, value: string, expiresAt: number, keepMs: number): Promise<number>;
}

export interface PollingOptions {
  /** Key prefix; replicas of one deployment share it. */
  prefix: string;
  /** Leeway in ms before a poll counts as too fast. */
  leewayMs: number;
  /** Seconds a slow_down adds to the interval (RFC 8628: 5). */
  stepSeconds: number;
  /** The interval never grows past this by slow_down (seconds). */
  capSeconds: number;
  /** How long a hash outlives its authorization's expiry, so late polls still answer expired_token from Redis. */
  keepAfterExpiryMs: number;
  /** How long the host waits for a Redis command (REDIS_COMMAND_TIMEOUT_MS): a poll run later changes nothing. */
  commandTimeoutMs: number;
}

/** The script's code for a poll Redis ran after its deadline. */
const TOO_LATE = 7;

const VERDICTS: Record<number, PollVerdict['kind']> = {
  0: 'unknown',
  1: 'pending',
  2: 'slow_down',
  3: 'expired',
  4: 'consumed',
  5: 'denied',
  6: 'ask',
  8: 'foreign',
};

export function createPollingStore(redis: Redis, opts: PollingOptions): PollingStore {
  const r = redis as PollingRedis;
  if (typeof r.devicePoll !== 'function') {
    redis.defineCommand('devicePoll', { numberOfKeys: 1, lua: POLL_SCRIPT });
    redis.defineCommand('deviceSeed', { numberOfKeys: 1, lua: SEED_SCRIPT });
    redis.defineCommand('deviceMark', { numberOfKeys: 1, lua: MARK_SCRIPT });
  }
  const key = (hash: string) => `${opts.prefix}:poll:${hash}`;
  const deadlines: RedisDeadlines = redisDeadlines(redis, opts.commandTimeoutMs);
  return {
    async seed(hash, interval, expiresAt, owner) {
      await r.deviceSeed(key(hash), interval, expiresAt.getTime(), '', opts.keepAfterExpiryMs, owner ?? '');
    },
    async reseed(hash, interval, expiresAt, lastPoll, owner) {
      await r.deviceSeed(
        key(hash),
        interval,
        expiresAt.getTime(),
        String(lastPoll.getTime()),
        opts.keepAfterExpiryMs,
        owner ?? '',
      );
    },
    async poll(hash, now, owner) {
      const [code, interval, clock] = await r.devicePoll(
        key(hash),
        now.getTime(),
        opts.leewayMs,
        opts.stepSeconds,
        opts.capSeconds,
        await deadlines.deadline(),
        owner ?? '',
      );
      deadlines.observe(clock);
      if (code === TOO_LATE) throw new DependencyTimeoutError('the poll reached Redis after its deadline');
      const kind = VERDICTS[code] ?? 'ask';
      return kind === 'slow_down' ? { kind, interval } : ({ kind } as PollVerdict);
    },
    async markDeciding(hash, expiresAt) {
      await r.deviceMark(key(hash), 'd', '1', expiresAt.getTime(), opts.keepAfterExpiryMs);
    },
    async markFinal(hash, outcome, expiresAt) {
      await r.deviceMark(key(hash), 'x', outcome, expiresAt.getTime(), opts.keepAfterExpiryMs);
    },
  };
}
