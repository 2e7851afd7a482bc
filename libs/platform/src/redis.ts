// Redis connections (ioredis) for replay sets, rate limits, caches and pub/sub, each call bounded in time and every
// connection error logged through pino as JSON (never ioredis's plain-text "Unhandled error event" on stderr).
import { Redis } from 'ioredis';
import { createLogger, type Logger } from './logger';

export { Redis };

export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

/** How long a Redis call may take (see RELIABILITY.md). */
export interface RedisBounds {
  /** Opening a connection (REDIS_CONNECT_TIMEOUT_MS, default 2000). */
  connectTimeoutMs: number;
  /** One command, queued or sent, until its answer (REDIS_COMMAND_TIMEOUT_MS, default 1000). */
  commandTimeoutMs: number;
}

/** The defaults of REDIS_CONNECT_TIMEOUT_MS and REDIS_COMMAND_TIMEOUT_MS (config.ts reads the variables). */
export const DEFAULT_REDIS_BOUNDS: RedisBounds = { connectTimeoutMs: 2000, commandTimeoutMs: 1000 };

export interface RedisOptions {
  lazy?: boolean;
  /**
   * Commands issued in the same tick go out in one write (ioredis auto-pipelining): fewer syscalls on the hot paths.
   * For command connections only; leave it off for subscribers.
   */
  autoPipelining?: boolean;
  bounds?: RedisBounds;
  /** Where connection errors go (at debug: the dependency watch logs the state changes). */
  logger?: Logger;
}

let fallbackLogger: Logger | undefined;

/**
 * A command or subscriber connection. Not for BullMQ's blocking connections: BullMQ builds those itself from
 * plain options, without a command timeout (a blocking pop waits on purpose).
 */
export function createRedis(url: string, opts: RedisOptions = {}): Redis {
  const bounds = opts.bounds ?? DEFAULT_REDIS_BOUNDS;
  const redis = new Redis(url, {
    enableAutoPipelining: opts.autoPipelining ?? false,
    maxRetriesPerRequest: 2,
    enableOfflineQueue: true,
    lazyConnect: opts.lazy ?? false,
    connectTimeout: bounds.connectTimeoutMs,
    commandTimeout: bounds.commandTimeoutMs,
  });
  fallbackLogger ??= createLogger('redis');
  const logger = opts.logger ?? fallbackLogger;
  redis.on('error', (err: Error & { code?: string }) => {
    logger.debug({ dependency: 'redis', error: err.code ?? err.message }, 'redis connection error');
  });
  return redis;
}
