// The migration CLI reads its environment through its schema at its entry: DATABASE_URL defaults to the development
// database, a bad one fails naming the variable and never its value, and the CLI run on a fresh database name
// creates and migrates it.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import { DEFAULT_DATABASE_URL } from './client';
import { migrateConfigFromEnv } from './migrate-config';

const ROOT = path.resolve(__dirname, '..', '..', '..');
/** The test run's PostgreSQL (the worktree's, or the development default). */
const SERVER = process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;

function runCli(
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { DATABASE_URL: _, ...rest } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', 'libs/db/src/migrate-cli.ts'], {
    cwd: ROOT,
    env: { ...rest, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

test('DATABASE_URL: the development database when unset, else the URL given', () => {
  expect(migrateConfigFromEnv({})).toEqual({ databaseUrl: DEFAULT_DATABASE_URL });
  const url = 'postgres://app:secret@db.internal:5433/identity';
  expect(migrateConfigFromEnv({ DATABASE_URL: url })).toEqual({ databaseUrl: url });
});

test('a bad DATABASE_URL is refused naming the variable, never its value', () => {
  for (const bad of ['mysql://app:secret@db/identity', 'not a url secret', 'postgres://app:secret@db', '']) {
    let message = '';
    try {
      migrateConfigFromEnv({ DATABASE_URL: bad });
    } catch (err) {
      message = (err as Error).message;
    }
    expect([bad, message.startsWith('invalid configuration: DATABASE_URL must')]).toEqual([bad, true]);
    expect([bad, message.includes('secret')]).toEqual([bad, false]);
  }
});

test('the CLI refuses a bad DATABASE_URL at its entry: one stderr line, exit 1', async () => {
  const run = await runCli({ DATABASE_URL: 'mysql://app:secret@db/identity' });
  expect(run.code).toBe(1);
  expect(run.stderr).toBe(
    'migration failed: invalid configuration: DATABASE_URL must be a postgres:// or postgresql:// URL\n',
  );
  expect(run.stdout).toBe('');
}, 60_000);

test('the CLI creates and migrates the database DATABASE_URL names', async () => {
  const name = `mig_${randomBytes(6).toString('hex')}`;
  const target = new URL(SERVER);
  target.pathname = `/${name}`;
  try {
    const run = await runCli({ DATABASE_URL: target.toString() });
    expect([run.code, run.stderr]).toEqual([0, '']);
    const result = JSON.parse(run.stdout) as { applied: string[]; alreadyApplied: string[] };
    expect(result.applied.length).toBeGreaterThan(0);
    expect(result.alreadyApplied).toEqual([]);
  } finally {
    const admin = new URL(SERVER);
    admin.pathname = '/postgres';
    const client = new pg.Client({ connectionString: admin.toString() });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS "${name}"`);
    await client.end();
  }
}, 120_000);
