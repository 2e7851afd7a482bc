// `pnpm db:migrate`: applies every migration to DATABASE_URL (creating the database if it is missing).
import pg from 'pg';
import { migrate } from './migrate';
import { migrateConfigFromEnv } from './migrate-config';

async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
  } finally {
    await client.end();
  }
}

async function main(): Promise<void> {
  // A process entry: the one place this tool reads its environment, through its schema.
  const { databaseUrl: url } = migrateConfigFromEnv(process.env);
  await ensureDatabase(url);
  const result = await migrate(url);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`migration failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
