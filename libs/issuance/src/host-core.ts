// The connections and caches every issuing host opens the same way: PostgreSQL, Redis, the key ring with its
// change subscriber, the issuance core, the application cache, a logger and metrics. Each host adds its own.
import { createPrisma, type Db } from '@svc/db';
import { createKeyRing, type KeyRing } from '@svc/keyring';
import {
  createLogger,
  createMetrics,
  createRedis,
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
  const db = createPrisma();
  const redis = createRedis(undefined, { autoPipelining: true });
  const kek = loadKek(env);
  const keyRing = createKeyRing({ db, kek, subscriber: createRedis() });
  return {
    db,
    redis,
    keyRing,
    issuance: issuanceDepsFromEnv(db, keyRing, kek),
    apps: createApplicationCache(db),
    logger: createLogger(name),
    metrics: createMetrics(name),
    async close() {
      await keyRing.close().catch(() => undefined);
      await redis.quit().catch(() => undefined);
      await db.$disconnect().catch(() => undefined);
    },
  };
}

/** What every issuing host gives createHostApp: its name, logger and metrics; ready when PostgreSQL and Redis answer. */
export function hostAppOptions(
  name: string,
  deps: Pick<HostParts, 'db' | 'redis' | 'logger' | 'metrics'>,
): HostAppOptions {
  return {
    name,
    logger: deps.logger,
    metrics: deps.metrics,
    async readiness() {
      await deps.db.$queryRaw`SELECT 1`;
      await deps.redis.ping();
    },
  };
}
