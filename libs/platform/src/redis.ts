// Redis connections (ioredis) for replay sets, rate limits, caches and pub/sub.
import { Redis } from 'ioredis';

export { Redis };

export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

export function redisUrl(): string {
  return process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
}

export function createRedis(url = redisUrl(), opts: { lazy?: boolean } = {}): Redis {
  return new Redis(url, {
    maxRetriesPerRequest: 2,
    enableOfflineQueue: true,
    lazyConnect: opts.lazy ?? false,
    connectTimeout: 2000,
  });
}
