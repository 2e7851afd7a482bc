// What every issuing host gives createHostApp: its name, logger, metrics, a dependency watch, and a readiness
// check that waits for PostgreSQL, Redis and the signing keys.
import { createDependencyWatch, type DependencyWatch, type HostAppOptions } from '@svc/platform';
import type { HostParts } from './host-core';

const watches = new WeakMap<object, WeakMap<object, DependencyWatch>>();
/** How to stop each watch (the watch and its Redis listeners), by each connection it probes. */
const stopsOver = new WeakMap<object, Set<() => void>>();

/** One dependency watch per pair of connections (tests build many apps over the same ones). */
function watchOf(deps: Pick<HostParts, 'db' | 'redis' | 'logger' | 'metrics'>): DependencyWatch {
  let byRedis = watches.get(deps.db);
  if (!byRedis) {
    byRedis = new WeakMap();
    watches.set(deps.db, byRedis);
  }
  let watch = byRedis.get(deps.redis);
  if (!watch) {
    const created = createDependencyWatch({
      logger: deps.logger,
      metrics: deps.metrics,
      probes: {
        postgres: () => deps.db.$queryRaw`SELECT 1`,
        redis: () => deps.redis.ping(),
      },
    });
    // A dropped Redis connection is noticed at once, even when no request needs Redis.
    const suspect = () => created.suspect();
    deps.redis.on('error', suspect);
    deps.redis.on('ready', suspect);
    const stop = () => {
      created.close();
      deps.redis.off('error', suspect);
      deps.redis.off('ready', suspect);
    };
    for (const connection of [deps.db, deps.redis]) {
      const stops = stopsOver.get(connection) ?? new Set();
      stops.add(stop);
      stopsOver.set(connection, stops);
    }
    byRedis.set(deps.redis, created);
    watch = created;
  }
  return watch;
}

/**
 * Stops every dependency watch over any of `connections` (its recheck timer, its suspicions, its Redis listeners).
 * Whoever closes a host's PostgreSQL or Redis calls it first: a watch left running probes them after they closed,
 * and a probe of a closed connection is a new connection (or a false "is down" line) after the host said it stopped.
 */
export function closeDependencyWatches(...connections: object[]): void {
  for (const connection of connections) {
    for (const stop of stopsOver.get(connection) ?? []) stop();
    stopsOver.delete(connection);
  }
}

/**
 * What every issuing host gives createHostApp: its name, logger and metrics; ready when PostgreSQL and Redis answer
 * within the probe timeout and the signing keys have been loaded (every ACTIVE key opened under the KEK) once since
 * start (a failed load is tried again at the next check), and a dependency watch that logs PostgreSQL's and
 * Redis's state changes (down, up) once each.
 */
export function hostAppOptions(
  name: string,
  deps: Pick<HostParts, 'db' | 'redis' | 'keyRing' | 'logger' | 'metrics' | 'trustProxy'>,
): HostAppOptions {
  const dependencies = watchOf(deps);
  let keysLoaded: Promise<unknown> | undefined;
  return {
    name,
    logger: deps.logger,
    metrics: deps.metrics,
    trustProxy: deps.trustProxy,
    dependencies,
    async readiness() {
      if (!(await dependencies.check())) throw new Error('a dependency is down');
      keysLoaded ??= deps.keyRing.loadSigningKeys().catch((err: unknown) => {
        keysLoaded = undefined;
        deps.logger.warn({ err: (err as Error).message }, 'signing keys not loaded');
        throw err;
      });
      await keysLoaded;
    },
  };
}
