// Worker test support: a private PostgreSQL database per test file (the sweeps and rotation ticks act on whole
// tables, so they must never touch the shared test database other suites run against), and worker wiring.
import { randomBytes, randomUUID } from 'node:crypto';
import { createLogger, createMetrics, type Redis } from '@svc/platform';
import { openPrivateDb as openPrivateDbOf, type PrivateDb, testEnv, testUrls } from '@svc/testkit';
import { Queue } from 'bullmq';
import type { WorkerConfig } from '../src/config';
import { workerConfigFromEnv } from '../src/config';
import { workerMetrics } from '../src/metrics';

/** A private database per test file (`worker_<random>`); drop() removes it again. */
export function openPrivateDb(): Promise<PrivateDb> {
  return openPrivateDbOf({ prefix: 'worker' });
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

export type { PrivateDb, Redis };

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
