// Redis connections (ioredis) for replay sets, rate limits, caches and pub/sub.
import { Redis } from 'ioredis';

export { Redis };

export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

export function redisUrl(): string {
  return process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
}

export interface RedisOptions {
  lazy?: boolean;
  /**
   * Commands issued in the same tick go out in one write (ioredis auto-pipelining): fewer syscalls on the hot paths.
   * For command connections only; leave it off for subscribers.
   */
  autoPipelining?: boolean;
}

export function createRedis(url = redisUrl(), opts: RedisOptions = {}): Redis {
  return new Redis(url, {
    enableAutoPipelining: opts.autoPipelining ?? false,
    maxRetriesPerRequest: 2,
    enableOfflineQueue: true,
    lazyConnect: opts.lazy ?? false,
    connectTimeout: 2000,
  });
}
