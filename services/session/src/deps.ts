// Everything the session host needs, built once per process from the environment.
import { createPrisma } from '@svc/db';
import {
  type ApplicationCache,
  createApplicationCache,
  type IssuanceDeps,
  issuanceDepsFromEnv,
} from '@svc/issuance';
import { createKeyRing, jwksMaxAgeSeconds } from '@svc/keyring';
import {
  createLogger,
  createMetrics,
  createRedis,
  envInt,
  type Logger,
  type Metrics,
  type Redis,
} from '@svc/platform';
import { loadKek } from '@svc/token-core';
import { createSessionCache, type SessionCache } from './store/session-cache';

export interface SessionDeps extends IssuanceDeps {
  redis: Redis;
  apps: ApplicationCache;
  sessions: SessionCache;
  logger: Logger;
  metrics: Metrics;
  /** Window in which a retry of the same rotation gets the pair already issued (REFRESH_RETRY_WINDOW_MS). */
  retryAllowanceMs: number;
  /** recommendedRecheckSeconds for an active session (INTROSPECT_RECHECK_SECONDS). */
  recheckSeconds: number;
  /** JWK Set Cache-Control max-age: never longer than the key prepublication window. */
  jwksMaxAgeSeconds: number;
}

export interface OpenedSessionDeps extends SessionDeps {
  close(): Promise<void>;
}

export function openSessionDeps(): OpenedSessionDeps {
  const db = createPrisma();
  const redis = createRedis(undefined, { autoPipelining: true });
  const keySubscriber = createRedis();
  const sessionSubscriber = createRedis();
  const kek = loadKek();
  const ring = createKeyRing({ db, kek, subscriber: keySubscriber });
  const issuance = issuanceDepsFromEnv(db, ring, kek);
  const logger = createLogger('session');
  const deps: SessionDeps = {
    ...issuance,
    redis,
    apps: createApplicationCache(db),
    sessions: createSessionCache(db, sessionSubscriber),
    logger,
    metrics: createMetrics('session'),
    retryAllowanceMs: envInt('REFRESH_RETRY_WINDOW_MS', 2000),
    recheckSeconds: envInt('INTROSPECT_RECHECK_SECONDS', 60),
    jwksMaxAgeSeconds: jwksMaxAgeSeconds(),
  };
  return {
    ...deps,
    async close() {
      await deps.sessions.close();
      await ring.close();
      await redis.quit().catch(() => undefined);
      await db.$disconnect();
    },
  };
}
