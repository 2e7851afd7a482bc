// Prisma Client factory over the pg driver adapter (no native engine needed, works offline), and the plain pg pool
// under it for the few hot statements that run as named prepared statements.
import { setFlagsFromString } from 'node:v8';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from './generated/client';

export const DEFAULT_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/test';

export type Db = PrismaClient;

const pools = new WeakMap<Db, pg.Pool>();
const boundsByDb = new WeakMap<Db, DbBounds>();

/**
 * How long any PostgreSQL call may take, so that a stalled or unreachable server fails a request in seconds
 * instead of holding it for the whole outage (see RELIABILITY.md).
 */
export interface DbBounds {
  /** Connections in the pool (DB_POOL_MAX, default 10). */
  poolMax: number;
  /** Waiting for a pooled connection, including opening a new one (DB_CONNECT_TIMEOUT_MS, default 2000). */
  connectTimeoutMs: number;
  /**
   * One statement: PostgreSQL cancels it after this (`statement_timeout`), and the client gives up
   * STATEMENT_MARGIN_MS later whether or not the server answers (`query_timeout`), since a frozen server never
   * sends its cancellation (DB_STATEMENT_TIMEOUT_MS, default 2000).
   */
  statementTimeoutMs: number;
  /**
   * DATABASE_POOL_MODE (default `session`). `transaction`: PostgreSQL is reached through a pooler in transaction
   * mode (PgBouncer), where consecutive transactions of one client connection may run on different server
   * connections, so nothing may outlive a transaction: no named prepared statements (`runPrepared` sends unnamed
   * ones, parsed every time) and no session settings (`statement_timeout` is set with `SET LOCAL` at each
   * transaction's BEGIN; a statement outside a transaction is bounded by the client's `query_timeout` and the
   * role's default `statement_timeout`, deploy/SIZING.md).
   */
  poolMode?: 'session' | 'transaction';
}

/** The client waits this much beyond `statement_timeout` for the server's own cancellation to arrive. */
export const STATEMENT_MARGIN_MS = 500;

/** The defaults of DB_POOL_MAX, DB_CONNECT_TIMEOUT_MS and DB_STATEMENT_TIMEOUT_MS (a host's schema reads them). */
export const DEFAULT_DB_BOUNDS: DbBounds = { poolMax: 10, connectTimeoutMs: 2000, statementTimeoutMs: 2000 };

let liftoffOnly = false;

/**
 * Prisma's query compiler is a 3.4 MB WebAssembly module, the only WebAssembly a process of ours runs. V8 compiles
 * it with its baseline compiler (Liftoff) and then re-compiles its busy functions with the optimizing one
 * (TurboFan) on background threads, whose working memory stays in their malloc arenas: measured on a built session
 * host, 187 MB RSS idle with tiering and 122 MB with Liftoff only. The hot paths run their SQL on the pool directly
 * (`runPrepared`), so only the colder Prisma calls run the compiler; their CPU per call measured the same with
 * either (620-800 us per findFirst in alternating runs). The flags are read when a module is compiled, so they are
 * set before the first client exists; they concern WebAssembly only, not JavaScript.
 *
 * V8 applies a flag's implications only at start-up: on Node 24 (V8 13.6) `--liftoff-only` set here alone left
 * dynamic tier-up on, and the session host idled at 148-162 MiB instead of 126-129 MiB (issue 27). Both tier-up
 * flags are therefore turned off by name; `client.test.ts` checks a hot function stays on Liftoff.
 */
export function compileWebAssemblyWithLiftoffOnly(): void {
  if (liftoffOnly) return;
  setFlagsFromString('--liftoff-only');
  setFlagsFromString('--no-wasm-tier-up');
  setFlagsFromString('--no-wasm-dynamic-tiering');
  liftoffOnly = true;
}

/** What a query on a client after its `$disconnect` fails with: the client is closed, not reconnected. */
export class ClosedDbError extends Error {
  constructor() {
    super('the database client is closed ($disconnect ended its pool)');
    this.name = 'ClosedDbError';
  }
}

/**
 * Prisma's pg adapter over the one pool made for the client, which it ends at `$disconnect`, and never another.
 * Prisma connects lazily, so a query after `$disconnect` (a dependency probe's timer, a late handler) connects again,
 * and PrismaPg, having let go of the ended pool, would build a new one from its options: a connection opened after
 * the host closed, which nothing closes (and, in a test, pg's require of `net` after Jest tore the file down).
 * Refusing instead makes a closed client stay closed.
 */
class PoolBoundPg extends PrismaPg {
  constructor(private readonly pool: pg.Pool) {
    super(pool, { disposeExternalPool: true });
  }

  override async connect(): ReturnType<PrismaPg['connect']> {
    if (this.pool.ending) throw new ClosedDbError();
    return super.connect();
  }
}

/** Creates a Prisma client over a bounded pg pool; every call through it is bounded as `DbBounds` says. */
export function createPrisma(url: string, bounds: DbBounds = DEFAULT_DB_BOUNDS): PrismaClient {
  compileWebAssemblyWithLiftoffOnly();
  const transactionPooled = bounds.poolMode === 'transaction';
  const pool = new pg.Pool({
    connectionString: url,
    max: bounds.poolMax,
    connectionTimeoutMillis: bounds.connectTimeoutMs,
    // A startup parameter sets it for the whole session: PgBouncer refuses it, and a session's settings would
    // not follow its transactions to other server connections anyway.
    ...(transactionPooled ? {} : { statement_timeout: bounds.statementTimeoutMs }),
    query_timeout: bounds.statementTimeoutMs + STATEMENT_MARGIN_MS,
    // A peer that vanished without a reset (a partition) is noticed by TCP keepalive on idle connections.
    keepAlive: true,
  });
  // An idle connection the server closed (restart, failover, dropped database) leaves the pool by itself; the next
  // query opens a new one. Without a listener the pool's 'error' event would end the process.
  pool.on('error', () => undefined);
  if (transactionPooled)
    pool.on('connect', (client) => timeEachTransaction(client, bounds.statementTimeoutMs));
  const client = new PrismaClient({ adapter: new PoolBoundPg(pool) });
  pools.set(client, pool);
  boundsByDb.set(client, bounds);
  return client;
}

/**
 * Makes every transaction `client` begins set its own `statement_timeout` (`SET LOCAL`, gone at COMMIT or ROLLBACK),
 * in the same round trip as BEGIN: Prisma's driver adapter opens each transaction with a plain `BEGIN`.
 */
function timeEachTransaction(client: pg.PoolClient, statementTimeoutMs: number): void {
  const begin = `BEGIN; SET LOCAL statement_timeout = ${Math.trunc(statementTimeoutMs)}`;
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  const isBegin = (q: unknown) =>
    (typeof q === 'string' ? q : (q as { text?: unknown } | null)?.text)?.toString().trim().toUpperCase() ===
    'BEGIN';
  (client as { query: unknown }).query = (q: unknown, ...rest: unknown[]) => {
    if (!isBegin(q)) return query(q, ...rest);
    return query(typeof q === 'string' ? begin : { ...(q as object), text: begin }, ...rest);
  };
}

/** The bounds a client made by `createPrisma` runs under. */
export function dbBoundsOf(db: Db): DbBounds {
  const bounds = boundsByDb.get(db);
  if (!bounds) throw new Error('dbBoundsOf needs a client made by createPrisma');
  return bounds;
}

/** The pg pool under a client made by `createPrisma` (for its 'error' events). */
export function poolOf(db: Db): pg.Pool | undefined {
  return pools.get(db);
}

/** A statement prepared once per connection: a stable name and its SQL text with $n parameters. */
export interface Statement {
  name: string;
  text: string;
}

/**
 * Named inputs of a SQL fragment bound to the positional parameters $first.. in the order they are declared, each
 * cast to its type: `paramsOf({ id: 'uuid', n: 'int' })` is `{ id: '$1::uuid', n: '$2::int' }`. The statement's
 * values are then passed in that same order.
 */
export function paramsOf<K extends string>(types: Record<K, string>, first = 1): Record<K, string> {
  return Object.fromEntries(
    Object.entries(types).map(([name, type], i) => [name, `$${first + i}::${type}`]),
  ) as Record<K, string>;
}

/**
 * Runs a named prepared statement on the pool under `db`: PostgreSQL parses and plans it once per connection,
 * and the call skips Prisma's query layer. For the hot paths (refresh, direct issue) only. Under
 * DATABASE_POOL_MODE=transaction the statement goes unnamed (parsed and planned at each call, same results): a
 * named one would be prepared on one server connection and executed on another.
 */
export async function runPrepared<Row>(db: Db, statement: Statement, values: unknown[]): Promise<Row[]> {
  const pool = pools.get(db);
  if (!pool) throw new Error('runPrepared needs a client made by createPrisma');
  const query =
    boundsByDb.get(db)?.poolMode === 'transaction'
      ? { text: statement.text, values }
      : { name: statement.name, text: statement.text, values };
  const result = await pool.query(query);
  return result.rows as Row[];
}
