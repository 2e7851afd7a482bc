// What commands run against: the database, the KEK and Redis, each opened only when a command first needs it.
import { createPrisma, type Db } from '@svc/db';
import { SESSION_CHANGE_CHANNEL } from '@svc/issuance/shared-sql';
import { jwksMaxAge, publishKeyChange, type RotationWindows, rotationPrepublishSeconds } from '@svc/keyring';
import {
  ConfigError as BadVariables,
  type Clock,
  createLogger,
  createRedis,
  type Env,
  intVar,
  isProduction,
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
import { ConfigError } from './errors';

function adminVars(production: boolean) {
  return {
    ...processVars(production),
    CONNECT_URL: urlVar('http://localhost:4101'),
    JWKS_MAX_AGE_SECONDS: intVar(300, { min: 1 }),
    KEY_PREPUBLISH_SECONDS: intVar(86_400, { min: 1 }),
    KEY_CACHE_TTL_MS: intVar(30_000),
  };
}

export interface AdminConfig extends ProcessConfig {
  connectUrl: string;
  /** See AdminContext.keyRotation. */
  keyRotation: RotationWindows;
}

/** The admin tool's configuration; a bad variable is the tool's ConfigError (exit 3), naming it. */
export function adminConfigFromEnv(env: Env): AdminConfig {
  const production = isProduction(env);
  try {
    return readConfig(adminVars(production), env, (v) => ({
      ...processConfigOf(production, v),
      connectUrl: v.CONNECT_URL,
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
      ports ??= createProvisioningPorts(db);
      return ports;
    },
    kek: () => {
      kek ??= kekFromBytes(config().kekBytes, config().previousKekBytes);
      return kek;
    },
    connectUrl: () => config().connectUrl,
    keyRotation: () => config().keyRotation,
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
