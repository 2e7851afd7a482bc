// Everything the session host needs, built once per process from the environment.
import { type ApplicationCache, type IssuanceDeps, openHostCore } from '@svc/issuance';
import { jwksMaxAgeSeconds } from '@svc/keyring';
import { createRedis, envInt, type Logger, type Metrics, type Redis } from '@svc/platform';
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
  const core = openHostCore('session');
  const deps: SessionDeps = {
    ...core.issuance,
    redis: core.redis,
    apps: core.apps,
    sessions: createSessionCache(core.db, createRedis()),
    logger: core.logger,
    metrics: core.metrics,
    retryAllowanceMs: envInt('REFRESH_RETRY_WINDOW_MS', 2000),
    recheckSeconds: envInt('INTROSPECT_RECHECK_SECONDS', 60),
    jwksMaxAgeSeconds: jwksMaxAgeSeconds(),
  };
  return {
    ...deps,
    async close() {
      await deps.sessions.close();
      await core.close();
    },
  };
}
