// Everything the session host needs, opened once per process from its parsed configuration.

import { createClientAuthPorts } from '@svc/client-auth';
import type { Db } from '@svc/db';
import { createDpopReplay, openHostCore } from '@svc/host';
import type { ApplicationCache, IssuanceDeps } from '@svc/issuance';
import { type Clock, createRedis, type Logger, type Metrics, type Redis } from '@svc/platform';
import type { SessionConfig } from './config';
import type { SessionPorts } from './domain/ports';
import { createSessionCache } from './store/session-cache';

export interface SessionDeps extends IssuanceDeps {
  /** The issuance core's stores and the session cache, bound once (domain/ports.ts). */
  ports: SessionPorts;
  /** The host's own handle, for readiness (/readyz); rules and client authentication take `ports`. */
  db: Db;
  redis: Redis;
  apps: ApplicationCache;
  logger: Logger;
  metrics: Metrics;
  /** Window in which a retry of the same rotation gets the pair already issued (REFRESH_RETRY_WINDOW_MS). */
  retryAllowanceMs: number;
  /** recommendedRecheckSeconds for an active session (INTROSPECT_RECHECK_SECONDS). */
  recheckSeconds: number;
  /** This host's public origin (SESSION_URL): a DPoP proof's htu names it. */
  sessionUrl: string;
  /** JWK Set Cache-Control max-age: never longer than the key prepublication window. */
  jwksMaxAgeSeconds: number;
  /** Express's `trust proxy` (TRUST_PROXY). */
  trustProxy: SessionConfig['trustProxy'];
  /** The development mailbox's page (DEV_MAILBOX_URL), linked from `GET /`. */
  devMailboxUrl?: string;
}

export interface OpenedSessionDeps extends SessionDeps {
  close(): Promise<void>;
}

/** Opens the core connections, then the session cache on its own subscriber connection; binds the ports once. */
export function openSessionDeps(config: SessionConfig, clock: Clock): OpenedSessionDeps {
  const core = openHostCore(config, clock);
  const subscriber = createRedis(config.redisTarget, { logger: core.logger, bounds: config.redis });
  const sessionCache = createSessionCache(core.db, subscriber, config.sessionCacheMs, clock);
  const deps: SessionDeps = {
    ...core.issuance,
    ports: {
      ...core.issuance.ports,
      sessionCache,
      clientAuth: createClientAuthPorts(core.db, core.claims),
      dpopReplay: createDpopReplay(core.claims),
    },
    db: core.db,
    redis: core.redis,
    apps: core.apps,
    logger: core.logger,
    metrics: core.metrics,
    retryAllowanceMs: config.retryAllowanceMs,
    recheckSeconds: config.recheckSeconds,
    sessionUrl: config.urls.session,
    devMailboxUrl: config.devMailboxUrl,
    jwksMaxAgeSeconds: config.jwksMaxAgeSeconds,
    trustProxy: config.trustProxy,
  };
  return {
    ...deps,
    async close() {
      await sessionCache.close();
      await core.close();
    },
  };
}
