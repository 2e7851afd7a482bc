// The connections and caches every issuing host opens the same way, from its parsed configuration: PostgreSQL,
// Redis, the key ring with its change subscriber, the issuance core, the application cache, a logger and metrics.
// Each host adds its own parts in its deps.ts.
import { createPrisma, type Db } from '@svc/db';
import {
  type ApplicationCache,
  createApplicationCache,
  createTermsCache,
  type IssuanceDeps,
} from '@svc/issuance';
import { createIssuancePorts } from '@svc/issuance/stores';
import { createKeyRing, type KeyRing } from '@svc/keyring';
import {
  type Clock,
  closeRedis,
  createLogger,
  createMetrics,
  createRedis,
  createSingleUseClaims,
  type Logger,
  type Metrics,
  type Redis,
  type SingleUseClaims,
  type TrustProxy,
} from '@svc/platform';
import { kekFromBytes } from '@svc/token-core';
import { closeDependencyWatches } from './app-options';
import type { IssuingHostConfig } from './issuing-config';

export interface HostCore {
  db: Db;
  /** The command connection (auto-pipelined: concurrent commands share round trips). */
  redis: Redis;
  /** Single use across replicas (replay sets): on a connection of their own when they WAIT for replicas. */
  claims: SingleUseClaims;
  keyRing: KeyRing;
  issuance: IssuanceDeps;
  apps: ApplicationCache;
  logger: Logger;
  metrics: Metrics;
  /** Express's `trust proxy` (TRUST_PROXY): which forwarded client addresses to believe. */
  trustProxy: TrustProxy;
  /**
   * Stops the dependency watches over its connections, then closes the key ring (and its subscriber), Redis and
   * PostgreSQL, in that order: nothing of the host opens a connection afterwards.
   */
  close(): Promise<void>;
}

/** What a host's dependencies carry of the core; tests build it themselves and may leave metrics out. */
export type HostParts = Omit<HostCore, 'close' | 'metrics' | 'trustProxy'> & {
  metrics?: Metrics;
  trustProxy?: TrustProxy;
};

/**
 * Opens the core of an issuing host; `clock` is the one clock of every part: the process's systemClock from
 * serveHostProcess, a settable one in tests.
 */
export function openHostCore(config: IssuingHostConfig, clock: Clock): HostCore {
  const logger = createLogger(config.name, { level: config.logLevel });
  const db = createPrisma(config.databaseUrl, config.db);
  const metrics = createMetrics(config.name);
  // Opened with the host's metrics: a store's tolerated failure on it is counted in redis_failures_total.
  const redis = createRedis(config.redisTarget, {
    autoPipelining: true,
    logger,
    bounds: config.redis,
    metrics,
  });
  // WAIT blocks its connection until the replicas answer: the claims get their own, so that the command
  // connection's other traffic never queues behind one (single-use-claim.ts). Without replicas, no WAIT, no
  // connection of their own.
  const claimConnection =
    config.redisClaim.replicas > 0
      ? createRedis(config.redisTarget, { logger, bounds: config.redis, metrics })
      : redis;
  const kek = kekFromBytes(config.kekBytes, config.previousKekBytes);
  const keyRing = createKeyRing({
    db,
    kek,
    subscriber: createRedis(config.redisTarget, { logger, bounds: config.redis }),
    cacheTtlMs: config.keyCacheTtlMs,
    clock,
  });
  const issuance = { ...issuanceDepsOf(config, { db, redis, keyRing, kek }, clock), metrics };
  return {
    db,
    redis,
    claims: createSingleUseClaims(claimConnection, config.redisClaim),
    keyRing,
    issuance,
    apps: createApplicationCache(issuance.ports.applications, config.appCacheTtlMs, clock),
    logger,
    metrics,
    trustProxy: config.trustProxy,
    async close() {
      // First what would use the connections on its own: the dependency watch's probes and recheck timer.
      closeDependencyWatches(db, redis);
      await keyRing.close().catch(() => undefined);
      if (claimConnection !== redis) await closeRedis(claimConnection);
      await closeRedis(redis);
      await db.$disconnect().catch(() => undefined);
    },
  };
}

/**
 * The issuance core's settings from the host's configuration, over connections the caller opened: its stores bound
 * once to the database and the command Redis connection (`ports`).
 */
export function issuanceDepsOf(
  config: IssuingHostConfig,
  parts: Pick<IssuanceDeps, 'keyRing' | 'kek'> & { db: Db; redis: Redis },
  clock: Clock,
): IssuanceDeps {
  const { db, redis, keyRing, kek } = parts;
  const ports = createIssuancePorts(db, redis);
  return {
    ports,
    keyRing,
    kek,
    subjectSecret: config.subjectSecret,
    issuer: config.issuer,
    connectUrl: config.urls.connect,
    errandTtlSeconds: config.errandTtlSeconds,
    terms: createTermsCache(ports.agreements, config.termsCacheMs, clock),
    verifiedTokenCacheSize: config.verifiedTokenCacheSize,
    clock,
  };
}
