// Prisma Client factory over the pg driver adapter (no native engine needed, works offline), and the plain pg pool
// under it for the few hot statements that run as named prepared statements.
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from './generated/client';

export const DEFAULT_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/test';

export function databaseUrl(): string {
  return process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
}

export type Db = PrismaClient;

const pools = new WeakMap<Db, pg.Pool>();

/** Creates a Prisma client with a bounded connection pool (DB_POOL_MAX, default 10). */
export function createPrisma(url = databaseUrl()): PrismaClient {
  const max = Number(process.env.DB_POOL_MAX ?? 10);
  const pool = new pg.Pool({ connectionString: url, max });
  // An idle connection the server closed (restart, failover, dropped database) leaves the pool by itself; the next
  // query opens a new one. Without a listener the pool's 'error' event would end the process.
  pool.on('error', () => undefined);
  const client = new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
  pools.set(client, pool);
  return client;
}

/** A statement prepared once per connection: a stable name and its SQL text with $n parameters. */
export interface Statement {
  name: string;
  text: string;
}

/**
 * Runs a named prepared statement on the pool under `db`: PostgreSQL parses and plans it once per connection,
 * and the call skips Prisma's query layer. For the hot paths (refresh, direct issue) only.
 */
export async function runPrepared<Row>(db: Db, statement: Statement, values: unknown[]): Promise<Row[]> {
  const pool = pools.get(db);
  if (!pool) throw new Error('runPrepared needs a client made by createPrisma');
  const result = await pool.query({ name: statement.name, text: statement.text, values });
  return result.rows as Row[];
}
