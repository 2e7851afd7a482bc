// Worker test support: a private PostgreSQL database per test file (the sweeps and rotation ticks act on whole
// tables, so they must never touch the shared test database other suites run against), and worker wiring.
import { randomBytes, randomUUID } from 'node:crypto';
import { createPrisma, type Db, migrate } from '@svc/db';
import { createLogger, createMetrics, type Redis } from '@svc/platform';
import { testEnv, testUrls } from '@svc/testkit';
import { Queue } from 'bullmq';
import pg from 'pg';
import type { WorkerConfig } from '../src/config';
import { workerConfigFromEnv } from '../src/config';
import { workerMetrics } from '../src/metrics';

export interface PrivateDb {
  url: string;
  db: Db;
  drop(): Promise<void>;
}

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const url = new URL(testUrls.database);
  url.pathname = '/postgres';
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Creates and migrates `worker_<random>`; drop() removes it again. */
export async function openPrivateDb(): Promise<PrivateDb> {
  const name = `worker_${randomBytes(6).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE "${name}"`));
  const url = new URL(testUrls.database);
  url.pathname = `/${name}`;
  await migrate(url.toString());
  const db = createPrisma(url.toString());
  return {
    url: url.toString(),
    db,
    async drop() {
      await db.$disconnect();
      await admin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    },
  };
}

export function testConfig(overrides: Partial<WorkerConfig> = {}): WorkerConfig {
  const base = workerConfigFromEnv(testEnv());
  return {
    ...base,
    queueName: `q-${randomBytes(5).toString('hex')}`,
    prefix: `wkr-test-${randomBytes(5).toString('hex')}`,
    ...overrides,
  };
}

export function quietDeps() {
  return {
    logger: createLogger('worker-test', { level: 'silent' }),
    metrics: workerMetrics(createMetrics('worker-test')),
  };
}

export type { Redis };

/** Removes a test queue's keys from Redis (its prefix is unique to the test). */
export async function dropQueue(name: string, prefix: string): Promise<void> {
  const queue = new Queue(name, {
    connection: { url: testUrls.redis, maxRetriesPerRequest: null },
    prefix,
  });
  await queue.obliterate({ force: true }).catch(() => undefined);
  await queue.close();
}

/** A session row for the sweeps: active unless told, looked at by the sweep from `sweepAfter` (default: expiry). */
export function sessionRow(r: {
  applicationId: string;
  accountId: string;
  expiresAt: Date;
  sweepAfter?: Date;
  status?: 'ACTIVE' | 'REVOKED' | 'EXPIRED';
}) {
  return {
    id: `sid_${randomBytes(12).toString('base64url')}`,
    applicationId: r.applicationId,
    accountId: r.accountId,
    subject: 'sub',
    authMethod: 'ACCESS_KEY_DIRECT',
    accessTtl: 600,
    refreshTtl: 86_400,
    currentJti: randomUUID(),
    status: r.status ?? 'ACTIVE',
    expiresAt: r.expiresAt,
    sweepAfter: r.sweepAfter ?? r.expiresAt,
  } as const;
}
