// A private PostgreSQL database for a test file whose subject acts on whole tables (sweeps, rotation ticks, a KEK
// reseal), so it never touches the shared test database other suites run against.
import { randomBytes } from 'node:crypto';
import { createPrisma, type Db, migrate } from '@svc/db';
import { testUrls } from './config';
import { TEST_SIDE_DB_BOUNDS } from './infra';
import { ensureBaselineTerms } from './terms';

export interface PrivateDb {
  url: string;
  db: Db;
  drop(): Promise<void>;
}

async function onServer(sql: string): Promise<void> {
  const url = new URL(testUrls.database);
  url.pathname = '/postgres';
  const admin = createPrisma(url.toString(), TEST_SIDE_DB_BOUNDS);
  try {
    await admin.$executeRawUnsafe(sql);
  } finally {
    await admin.$disconnect();
  }
}

/**
 * Creates and migrates `<prefix>_<random>`, with the baseline basic terms when `terms` (for issuing sessions in it);
 * drop() removes it again.
 */
export async function openPrivateDb(opts: { prefix?: string; terms?: boolean } = {}): Promise<PrivateDb> {
  const prefix = opts.prefix ?? 'private';
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await onServer(`CREATE DATABASE "${name}"`);
  const url = new URL(testUrls.database);
  url.pathname = `/${name}`;
  await migrate(url.toString());
  const db = createPrisma(url.toString(), TEST_SIDE_DB_BOUNDS);
  if (opts.terms) await ensureBaselineTerms(db);
  return {
    url: url.toString(),
    db,
    async drop() {
      await db.$disconnect();
      await onServer(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    },
  };
}
