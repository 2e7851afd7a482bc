// Rate limits shared across replicas through Redis (rate-limiter-flexible); exceeding one is 429 with Retry-After,
// Redis unreachable is 503 with Retry-After, and any other failure goes on unchanged (a bare 500, logged).
import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { clientAddressKey } from './client-address';
import { isDependencyFailure } from './dependencies';
import { ServiceError } from './errors';

export interface RateLimitOptions {
  keyPrefix: string;
  points: number;
  durationSeconds: number;
  /**
   * Whether the keys are client addresses (`req.ip`): then counted per clientAddressKey, an IPv6 client by its /64.
   * Required, so no new limiter keyed by address silently counts each of a /64's 2^64 addresses apart.
   */
  perAddress: boolean;
}

export interface RateLimiter {
  /**
   * Consumes one point for each key, all at once (one pipelined round trip with auto-pipelining); throws
   * TooManyAttempts (429, Retry-After) when any is exhausted, TemporarilyUnavailable (503, Retry-After) when Redis
   * is unreachable, and any other error as it is (a bare 500 at the host, logged).
   */
  consume(...keys: string[]): Promise<void>;
}

export function createRateLimiter(redis: Redis, opts: RateLimitOptions): RateLimiter {
  const limiter = new RateLimiterRedis({
    storeClient: redis,
    keyPrefix: `rl:${opts.keyPrefix}`,
    points: opts.points,
    duration: opts.durationSeconds,
    useRedisPackage: false,
  });
  return {
    async consume(...keys) {
      const results = await Promise.allSettled(
        keys.map((key) => limiter.consume(opts.perAddress ? clientAddressKey(key) : key)),
      );
      let wait: number | undefined;
      for (const r of results) {
        if (r.status === 'fulfilled') continue;
        if (!(r.reason instanceof RateLimiterRes)) {
          // Only Redis being unreachable is an outage; a bug (or a key of the wrong type) must not hide as a 503.
          if (!isDependencyFailure(r.reason)) throw r.reason;
          throw new ServiceError('TemporarilyUnavailable', {
            headers: { 'Retry-After': '1' },
            cause: r.reason,
          });
        }
        wait = Math.max(wait ?? 0, r.reason.msBeforeNext);
      }
      if (wait !== undefined) {
        const retry = Math.max(1, Math.ceil(wait / 1000));
        throw new ServiceError('TooManyAttempts', { headers: { 'Retry-After': String(retry) } });
      }
    },
  };
}
