// Redis failures a request path tolerates are counted before they are swallowed: a store that holds only its Redis
// connection counts on the metrics that connection was opened with (createRedis's `metrics`); a domain function
// counts on the host's metrics it was given.
import type { Redis } from 'ioredis';
import { countRedisFailure, type Metrics, type ToleratedRedisOperation } from './metrics';

/** The host metrics each command connection counts its tolerated failures on. */
const metricsOfConnection = new WeakMap<object, Metrics>();

/** Counts the tolerated failures of `redis` on `metrics` (createRedis does this when given `metrics`). */
export function countFailuresOn(redis: Redis, metrics: Metrics): void {
  metricsOfConnection.set(redis, metrics);
}

const isMetrics = (on: Metrics | Redis): on is Metrics => 'registry' in on && 'httpDuration' in on;

/**
 * A `.catch` handler for a Redis call the request survives without: counts the failure in redis_failures_total under
 * `operation` (on `on`, the host's metrics or the connection's), then answers `fallback`.
 */
export function toleratedRedisFailure<T>(
  on: Metrics | Redis | undefined,
  operation: ToleratedRedisOperation,
  fallback: T,
): (err: unknown) => T {
  return () => {
    const metrics = on === undefined ? undefined : isMetrics(on) ? on : metricsOfConnection.get(on);
    countRedisFailure(metrics, operation);
    return fallback;
  };
}
