// Rate limits shared across replicas through Redis (rate-limiter-flexible); exceeding one is 429 with Retry-After.
import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { ServiceError } from './errors';

export interface RateLimitOptions {
  keyPrefix: string;
  points: number;
  durationSeconds: number;
}

export interface RateLimiter {
  /** Consumes one point for each key; throws TooManyAttempts (429, Retry-After) when any is exhausted. */
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
      for (const key of keys) {
        try {
          await limiter.consume(key);
        } catch (err) {
          if (err instanceof RateLimiterRes) {
            const retry = Math.max(1, Math.ceil(err.msBeforeNext / 1000));
            throw new ServiceError('TooManyAttempts', 429, { headers: { 'Retry-After': String(retry) } });
          }
          throw new ServiceError('TemporarilyUnavailable', 503, {
            headers: { 'Retry-After': '1' },
            cause: err,
          });
        }
      }
    },
  };
}
