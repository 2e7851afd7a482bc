// The connections and caches every issuing host opens the same way: PostgreSQL, Redis, the key ring with its
// change subscriber, the issuance core, the application cache, a logger and metrics. Each host adds its own.
import { createPrisma, type Db } from '@svc/db';
import { createKeyRing, type KeyRing } from '@svc/keyring';
import {
  createDependencyWatch,
  createLogger,
  createMetrics,
  createRedis,
  type DependencyWatch,
  type HostAppOptions,
  type Logger,
  type Metrics,
  type Redis,
} from '@svc/platform';
import { loadKek } from '@svc/token-core';
import { type ApplicationCache, createApplicationCache } from './application-context';
import { type IssuanceDeps, issuanceDepsFromEnv } from './deps';

export interface HostCore {
  db: Db;
  /** The command connection (auto-pipelined: concurrent commands share round trips). */
  redis: Redis;
  keyRing: KeyRing;
  issuance: IssuanceDeps;
  apps: ApplicationCache;
  logger: Logger;
  metrics: Metrics;
  /** Closes the key ring (and its subscriber), Redis and PostgreSQL, in that order. */
  close(): Promise<void>;
}

/** What a host's dependencies carry of the core; tests build it themselves and may leave metrics out. */
export type HostParts = Omit<HostCore, 'close' | 'metrics'> & { metrics?: Metrics };

export function openHostCore(name: string, env: NodeJS.ProcessEnv = process.env): HostCore {
  const logger = createLogger(name);
  const db = createPrisma();
  const redis = createRedis(undefined, { autoPipelining: true, logger });
  const kek = loadKek(env);
  const keyRing = createKeyRing({ db, kek, subscriber: createRedis(undefined, { logger }) });
  return {
    db,
    redis,
    keyRing,
    issuance: issuanceDepsFromEnv(db, keyRing, kek),
    apps: createApplicationCache(db),
    logger,
    metrics: createMetrics(name),
    async close() {
      await keyRing.close().catch(() => undefined);
      await redis.quit().catch(() => undefined);
      await db.$disconnect().catch(() => undefined);
    },
  };
}

const watches = new WeakMap<object, WeakMap<object, DependencyWatch>>();

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
    deps.redis.on('error', () => created.suspect());
    deps.redis.on('ready', () => created.suspect());
    byRedis.set(deps.redis, created);
    watch = created;
  }
  return watch;
}

/**
 * What every issuing host gives createHostApp: its name, logger and metrics; ready when PostgreSQL and Redis answer
 * within the probe timeout and the signing keys have been loaded (every ACTIVE key opened under the KEK) once since
 * start (a failed load is tried again at the next check), and a dependency watch that logs PostgreSQL's and
 * Redis's state changes (down, up) once each.
 */
export function hostAppOptions(
  name: string,
  deps: Pick<HostParts, 'db' | 'redis' | 'keyRing' | 'logger' | 'metrics'>,
): HostAppOptions {
  const dependencies = watchOf(deps);
  let keysLoaded: Promise<unknown> | undefined;
  return {
    name,
    logger: deps.logger,
    metrics: deps.metrics,
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
