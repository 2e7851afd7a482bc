// Offline migration runner: applies prisma/migrations/*/migration.sql in order, recording each in
// `_prisma_migrations` exactly as `prisma migrate deploy` does (same table, sha256 checksum), so either tool
// can take over a database the other migrated. Runs under a PostgreSQL advisory lock: safe from many replicas.
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';

const LOCK_KEY = 72707369; // Same advisory lock id Prisma Migrate uses.

export interface MigrationResult {
  applied: string[];
  alreadyApplied: string[];
}

/** prisma/migrations beside the built `migrate.js` (`pnpm build` ships them there), else the checkout's. */
export function migrationsDir(): string {
  const shipped = path.join(__dirname, 'prisma', 'migrations');
  return existsSync(shipped) ? shipped : path.resolve(__dirname, '..', '..', '..', 'prisma', 'migrations');
}

export async function migrate(url: string, dir = migrationsDir()): Promise<MigrationResult> {
  const names = readdirSync(dir)
    .filter((n) => statSync(path.join(dir, n)).isDirectory())
    .sort();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const result: MigrationResult = { applied: [], alreadyApplied: [] };
  try {
    await client.query('SELECT pg_advisory_lock($1)', [LOCK_KEY]);
    await client.query(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
      "id" VARCHAR(36) PRIMARY KEY NOT NULL,
      "checksum" VARCHAR(64) NOT NULL,
      "finished_at" TIMESTAMPTZ,
      "migration_name" VARCHAR(255) NOT NULL,
      "logs" TEXT,
      "rolled_back_at" TIMESTAMPTZ,
      "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
      "applied_steps_count" INTEGER NOT NULL DEFAULT 0)`);
    const done = await client.query<{ migration_name: string; checksum: string; finished_at: Date | null }>(
      'SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL',
    );
    const byName = new Map(done.rows.map((r) => [r.migration_name, r]));
    for (const name of names) {
      const sql = readFileSync(path.join(dir, name, 'migration.sql'), 'utf8');
      const checksum = createHash('sha256').update(sql).digest('hex');
      const row = byName.get(name);
      if (row) {
        if (!row.finished_at)
          throw new Error(`migration ${name} failed earlier; resolve it before migrating`);
        if (row.checksum !== checksum) throw new Error(`migration ${name} was modified after it was applied`);
        result.alreadyApplied.push(name);
        continue;
      }
      const id = randomUUID();
      await client.query('BEGIN');
      try {
        await client.query(
          'INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at) VALUES ($1, $2, $3, now())',
          [id, checksum, name],
        );
        await client.query(sql);
        await client.query(
          'UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = $1',
          [id],
        );
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK');
        throw err;
      }
      result.applied.push(name);
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]).catch(() => undefined);
    await client.end();
  }
  return result;
}
