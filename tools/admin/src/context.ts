// What commands run against: the database, the KEK and Redis, each opened only when a command first needs it.
import { type AuditTrailStore, cliActor } from '@svc/audit';
import { createAuditTrailStore } from '@svc/audit/stores';
import { createPrisma, type Db } from '@svc/db';
import { SESSION_CHANGE_CHANNEL } from '@svc/issuance/shared-sql';
import { jwksMaxAge, publishKeyChange, type RotationWindows, rotationPrepublishSeconds } from '@svc/keyring';
import {
  ConfigError as BadVariables,
  boolVar,
  type Clock,
  createLogger,
  createRedis,
  type Env,
  intVar,
  isDevelopmentKek,
  isLoopbackHost,
  isProduction,
  namedKekVar,
  type ProcessConfig,
  processConfigOf,
  processVars,
  type Redis,
  readConfig,
  urlVar,
} from '@svc/platform';
import type { ProvisioningPorts } from '@svc/provisioning';
import type { AdminContext } from '@svc/provisioning/commands';
import { createProvisioningPorts } from '@svc/provisioning/stores';
import { type Kek, kekFromBytes } from '@svc/token-core';
import { ConfigError, KekRefused } from './errors';

function adminVars(production: boolean) {
  return {
    ...processVars(production),
    // Never the development KEK unless named (KEY_ENCRYPTION_KEY=development): a misspelt or missing variable must
    // not seal real secrets under a public key. Commands that neither seal nor open run without it.
    KEY_ENCRYPTION_KEY: namedKekVar(production),
    CONNECT_URL: urlVar('http://localhost:4101'),
    JWKS_MAX_AGE_SECONDS: intVar(300, { min: 1 }),
    KEY_PREPUBLISH_SECONDS: intVar(86_400, { min: 1 }),
    KEY_CACHE_TTL_MS: intVar(30_000),
    EVENTS_ALLOW_PRIVATE_TARGETS: boolVar(false),
  };
}

export interface AdminConfig extends Omit<ProcessConfig, 'kekBytes'> {
  /** KEY_ENCRYPTION_KEY's 32 bytes; undefined when unset (no command may then seal or open). A secret. */
  kekBytes: Buffer | undefined;
  connectUrl: string;
  /** EVENTS_ALLOW_PRIVATE_TARGETS: see AdminContext.eventTargets. */
  allowPrivateTargets: boolean;
  /** See AdminContext.keyRotation. */
  keyRotation: RotationWindows;
}

/** The admin tool's configuration; a bad variable is the tool's ConfigError (exit 3), naming it. */
export function adminConfigFromEnv(env: Env): AdminConfig {
  const production = isProduction(env);
  try {
    return readConfig(adminVars(production), env, (v) => ({
      ...processConfigOf(production, { ...v, KEY_ENCRYPTION_KEY: Buffer.alloc(0) }),
      kekBytes: v.KEY_ENCRYPTION_KEY,
      connectUrl: v.CONNECT_URL,
      allowPrivateTargets: v.EVENTS_ALLOW_PRIVATE_TARGETS,
      keyRotation: {
        publishedSeconds: rotationPrepublishSeconds(
          jwksMaxAge(v.JWKS_MAX_AGE_SECONDS, v.KEY_PREPUBLISH_SECONDS),
          v.KEY_CACHE_TTL_MS,
        ),
        keyCacheTtlMs: v.KEY_CACHE_TTL_MS,
      },
    }));
  } catch (err) {
    if (err instanceof BadVariables) throw new ConfigError(err.message);
    throw err;
  }
}

export type { AdminContext };

/** The KEK a sealing command may use (AdminContext.kek), or the refusal naming KEY_ENCRYPTION_KEY. */
export function namedKekBytes(config: AdminConfig): Buffer {
  const bytes = config.kekBytes;
  if (!bytes) {
    throw new KekRefused(
      "KEY_ENCRYPTION_KEY is not set, and this command seals or opens secrets: set KEY_ENCRYPTION_KEY to the hosts' key (32 bytes, base64), or KEY_ENCRYPTION_KEY=development for the built-in development key on a development database",
    );
  }
  if (!isDevelopmentKek(bytes)) return bytes;
  if (!isLoopbackHost(databaseHost(config.databaseUrl))) {
    throw new KekRefused(
      "KEY_ENCRYPTION_KEY is the development key, which only a development database (DATABASE_URL on localhost, 127.0.0.1 or [::1]) may use: set KEY_ENCRYPTION_KEY to the hosts' key",
    );
  }
  if (config.previousKekBytes.length > 0) {
    throw new KekRefused(
      'KEY_ENCRYPTION_KEY is the development key while KEY_ENCRYPTION_KEYS_PREVIOUS names another: what that key sealed would be resealed under the public development key; set KEY_ENCRYPTION_KEY to a key of your own',
    );
  }
  return bytes;
}

function databaseHost(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
}

const REDIS_TIMEOUT_MS = 2000;
/** The tool reports an unreachable Redis in its own words; the connection's errors are not printed. */
const silentLogger = createLogger('admin', { level: 'silent' });

/** `env` is read once, when a command first needs a setting; commands that need none run without it. */
export function createAdminContext(env: Env, clock: Clock): AdminContext {
  let parsed: AdminConfig | undefined;
  const config = () => {
    parsed ??= adminConfigFromEnv(env);
    return parsed;
  };
  let db: Db | undefined;
  let ports: ProvisioningPorts | undefined;
  let trail: AuditTrailStore | undefined;
  let kek: Kek | undefined;
  let redis: Redis | undefined;
  /** Publishes on a fresh connection; true when Redis could not be reached in time. */
  async function publish(send: (r: Redis) => Promise<unknown>): Promise<boolean> {
    // No retries and no offline queue: an operator waits at most a couple of seconds for an absent Redis.
    if (!redis) {
      redis = createRedis(config().redisTarget, {
        lazy: true,
        oneShot: true,
        bounds: { connectTimeoutMs: REDIS_TIMEOUT_MS, commandTimeoutMs: REDIS_TIMEOUT_MS },
        logger: silentLogger,
      });
    }
    const r = redis;
    try {
      await withTimeout(
        (async () => {
          if (r.status === 'wait') await r.connect();
          await send(r);
        })(),
        REDIS_TIMEOUT_MS * 2,
      );
      return false;
    } catch {
      return true;
    }
  }
  return {
    clock,
    provisioning: () => {
      db ??= createPrisma(config().databaseUrl, config().db);
      ports ??= createProvisioningPorts(db, {
        actor: cliActor(env),
        clock,
        chainWait: config().auditChainWait,
      });
      return ports;
    },
    audit: () => {
      db ??= createPrisma(config().databaseUrl, config().db);
      trail ??= createAuditTrailStore(db);
      return { auditTrail: trail };
    },
    kek: () => {
      kek ??= kekFromBytes(namedKekBytes(config()), config().previousKekBytes);
      return kek;
    },
    connectUrl: () => config().connectUrl,
    keyRotation: () => config().keyRotation,
    eventTargets: () => ({
      production: config().production,
      allowPrivate: config().allowPrivateTargets,
    }),
    async announceKeyChange(scopeId) {
      const failed = await publish((r) => publishKeyChange(r, scopeId));
      return failed
        ? 'the key change is saved, but Redis (REDIS_URL) was unreachable, so running hosts were not notified; they pick up the change when their key cache expires (KEY_CACHE_TTL_MS, 30 s by default)'
        : undefined;
    },
    async announceSessionChange(sid) {
      const failed = await publish((r) => r.publish(SESSION_CHANGE_CHANNEL, sid));
      return failed
        ? 'the session change is saved, but Redis (REDIS_URL) was unreachable, so running hosts were not notified; introspection picks it up when its session cache expires (SESSION_CACHE_MS, 1 s by default)'
        : undefined;
    },
    async close() {
      if (redis) {
        await withTimeout(redis.quit(), 1000).catch(() => undefined);
        redis.disconnect();
      }
      if (db) await db.$disconnect().catch(() => undefined);
    },
  };
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
