// A test's infrastructure: its own connections to the test database and Redis, and a key ring and issuance core
// over them, as a host would have.
import { createPrisma, type Db } from '@svc/db';
import { closeDependencyWatches, issuanceDepsOf, issuingConfigFromEnv } from '@svc/host';
import type { IssuanceDeps } from '@svc/issuance';
import { createKeyRing, type KeyRing } from '@svc/keyring';
import { type Clock, closeRedis, createRedis, type Redis, systemClock } from '@svc/platform';
import type { ProvisioningPorts } from '@svc/provisioning';
import { createProvisioningPorts } from '@svc/provisioning/stores';
import { type Kek, kekFromBytes } from '@svc/token-core';
import { testEnv } from './config';

export interface TestInfra {
  db: Db;
  redis: Redis;
  subscriber: Redis;
  keyRing: KeyRing;
  issuance: IssuanceDeps;
  /** The provisioning stores over `db`, bound once: what fixtures (provisionApp, grantClaim, ...) run on. */
  provisioning: ProvisioningPorts;
  close(): Promise<void>;
}

/** What a test's infrastructure is opened over; every field has the test default when left out. */
export interface InfraOptions {
  /** A database the caller owns and closes (close() leaves it connected). */
  over?: Db;
  /** The clock of the key ring and the issuance core (a test's settable clock); the system clock otherwise. */
  clock?: Clock;
  /** Another Redis (a fault proxy's address, say) instead of the test one. */
  redisUrl?: string;
  /** Another KEK than the test one (a KEK rotation test). */
  kek?: Kek;
}

/** The bounds of the test side's PostgreSQL pool (the hosts under test keep their configured ones). */
export const TEST_SIDE_DB_BOUNDS = {
  poolMax: 10,
  connectTimeoutMs: 15_000,
  statementTimeoutMs: 15_000,
} as const;

/**
 * Opens connections to the test database (or to `over`, a database the caller owns and closes) and Redis (or the
 * Redis at `redisUrl`), and a key ring and issuance core whose clock is `clock` (a test's settable clock, else the
 * system clock); close them in afterAll. A test file that keeps them for all its tests takes useInfra instead.
 */
export function openInfra(opts: InfraOptions = {}): TestInfra {
  const config = issuingConfigFromEnv('session', testEnv());
  // The test's own connection (fixtures, assertions), not the host under test: bounds wide enough that a fixture
  // query waiting behind a loaded machine (CI's two workers, child hosts, Chromium) is slow, never a failure.
  const db = opts.over ?? createPrisma(config.databaseUrl, TEST_SIDE_DB_BOUNDS);
  const redis = createRedis(opts.redisUrl ?? config.redisUrl);
  const subscriber = createRedis(opts.redisUrl ?? config.redisUrl);
  const kek = opts.kek ?? testKek();
  const clock = opts.clock ?? systemClock;
  const keyRing = createKeyRing({ db, kek, subscriber, clock });
  const issuance = issuanceDepsOf(config, { db, redis, keyRing, kek }, clock);
  return {
    db,
    redis,
    subscriber,
    keyRing,
    issuance,
    provisioning: createProvisioningPorts(db, { redis, actor: TESTKIT_ACTOR, clock }),
    async close() {
      // Host apps built over these connections (hostPartsOf) watch them: stop that before closing them.
      closeDependencyWatches(db, redis);
      await keyRing.close();
      await closeRedis(redis);
      if (!opts.over) await db.$disconnect();
    },
  };
}

/** Who a test's fixtures act as in the audit trail. */
export const TESTKIT_ACTOR = { actor: { kind: 'cli', id: 'testkit', name: 'testkit' } } as const;

/** The KEK of every test process and of the hosts tests start (the development KEK, as testEnv leaves it unset). */
export function testKek(): Kek {
  return kekFromBytes(issuingConfigFromEnv('session', testEnv()).kekBytes);
}
