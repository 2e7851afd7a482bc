// Everything the management host needs, opened once per process: PostgreSQL and Redis, the KEK, the provisioning
// ports the commands run over, the operator-key lookup, the Idempotency-Key records and the per-key rate limit.
import type { AuditedChanges, AuditTrailStore } from '@svc/audit';
import { createAuditedChanges, createAuditTrailStore } from '@svc/audit/stores';
import { createPrisma, type Db } from '@svc/db';
import { SESSION_CHANGE_CHANNEL } from '@svc/issuance/shared-sql';
import { publishKeyChange } from '@svc/keyring';
import {
  type Clock,
  closeRedis,
  createDependencyWatch,
  createLogger,
  createMetrics,
  createRateLimiter,
  createRedis,
  type DependencyWatch,
  type Logger,
  type Metrics,
  type RateLimiter,
  type Redis,
} from '@svc/platform';
import type { ProvisioningPorts } from '@svc/provisioning';
import { createProvisioningPorts, provisioningPortsInChange } from '@svc/provisioning/stores';
import { type Kek, kekFromBytes } from '@svc/token-core';
import type { ManagementConfig } from './config';
import type { ChangePorts, IdempotencyPort, OperatorKeysPort } from './domain/ports';
import { createIdempotencyStore } from './store/idempotency';
import { createOperatorKeyLookup } from './store/operator-keys';
import { createResourceLocks } from './store/resource-locks';

export interface ManagementDeps {
  db: Db;
  redis: Redis;
  logger: Logger;
  metrics: Metrics;
  clock: Clock;
  kek: Kek;
  /** The provisioning ports every command runs over (bound per request to its operator key for the audit trail). */
  provisioning: ProvisioningPorts;
  /**
   * One API change (POST, PATCH, DELETE) as one audited transaction over ChangePorts (bound per request to its
   * operator key with `as`): the If-Match check, the command's changes, their audit rows and the Idempotency-Key
   * answer commit together or not at all.
   */
  changes: AuditedChanges<ChangePorts>;
  /** The audit trail's reads (GET /v1/audit-events, verify, export). */
  auditTrail: AuditTrailStore;
  operatorKeys: OperatorKeysPort;
  idempotency: IdempotencyPort;
  rateLimit: RateLimiter;
  dependencies: DependencyWatch;
  config: Pick<
    ManagementConfig,
    'keyRotation' | 'bodyLimitBytes' | 'urls' | 'trustProxy' | 'production' | 'allowPrivateTargets'
  >;
  /** Tells every host's key ring, or session cache, of a change (the admin tool's announcements, over this host's Redis). */
  announce(channel: 'key' | 'session', id: string): Promise<boolean>;
}

export interface OpenedManagementDeps extends ManagementDeps {
  close(): Promise<void>;
}

export function openManagementDeps(config: ManagementConfig, clock: Clock): OpenedManagementDeps {
  const logger = createLogger('management', { level: config.logLevel });
  const metrics = createMetrics('management');
  const db = createPrisma(config.databaseUrl, config.db);
  const redis = createRedis(config.redisTarget, {
    autoPipelining: true,
    logger,
    bounds: config.redis,
    metrics,
  });
  // Bound per request to the operator key that asks (routes/command-context.ts): a change made through these base
  // ports would name no operator, so the base actor says so.
  const provisioning = createProvisioningPorts(db, {
    actor: { actor: { kind: 'operator_key', id: 'unbound', name: null } },
    clock,
    chainWait: config.auditChainWait,
  });
  const changes = createAuditedChanges<ChangePorts>(db, {
    context: { actor: { kind: 'operator_key', id: 'unbound', name: null } },
    clock,
    chainWait: config.auditChainWait,
    bind: (tx, scope) => ({
      provisioning: provisioningPortsInChange(tx, scope),
      idempotency: createIdempotencyStore(tx),
      resources: createResourceLocks(tx),
      afterCommit: scope.afterCommit,
    }),
  });
  const dependencies = createDependencyWatch({
    logger,
    metrics,
    probes: { postgres: () => db.$queryRaw`SELECT 1`, redis: () => redis.ping() },
  });
  const prefix = config.rateLimitNamespace ? `${config.rateLimitNamespace}:` : '';
  return {
    db,
    redis,
    logger,
    metrics,
    clock,
    kek: kekFromBytes(config.kekBytes, config.previousKekBytes),
    provisioning,
    changes,
    auditTrail: createAuditTrailStore(db),
    operatorKeys: createOperatorKeyLookup(provisioning, { ttlMs: config.operatorKeyCacheMs, clock }),
    idempotency: createIdempotencyStore(db),
    rateLimit: createRateLimiter(redis, {
      keyPrefix: `${prefix}management`,
      points: config.rateLimitPerMinute,
      durationSeconds: 60,
      perAddress: false,
    }),
    dependencies,
    config,
    async announce(channel, id) {
      try {
        if (channel === 'key') await publishKeyChange(redis, id);
        else await redis.publish(SESSION_CHANGE_CHANNEL, id);
        return true;
      } catch {
        return false;
      }
    },
    async close() {
      dependencies.close();
      await closeRedis(redis);
      await db.$disconnect().catch(() => undefined);
    },
  };
}
