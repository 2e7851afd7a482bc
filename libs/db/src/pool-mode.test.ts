// DATABASE_POOL_MODE: under `transaction` (PgBouncer's transaction pooling) nothing outlives a transaction on the
// server connection (no named prepared statement, no session setting) and the answers are the same as `session`'s.
import { randomBytes } from 'node:crypto';
import { createPrisma, type Db, DEFAULT_DB_BOUNDS, runPrepared } from './client';

const url = process.env.DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432/test';

/** One connection, so consecutive calls surely run on the same server session. */
function open(poolMode: 'session' | 'transaction', statementTimeoutMs = 2000): Db {
  return createPrisma(url, { ...DEFAULT_DB_BOUNDS, poolMax: 1, statementTimeoutMs, poolMode });
}

const statement = () => ({
  name: `pool_mode_${randomBytes(6).toString('hex')}`,
  text: 'SELECT $1::int + 1 AS n, current_setting($2::text) AS setting',
});

async function preparedCount(db: Db): Promise<number> {
  const rows = await db.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM pg_prepared_statements`;
  return rows[0]?.n ?? -1;
}

describe.each(['session', 'transaction'] as const)('pool mode %s', (mode) => {
  let db: Db;
  beforeAll(() => {
    db = open(mode);
  });
  afterAll(async () => {
    await db.$disconnect();
  });

  test('a hot statement answers the same; only session mode leaves it prepared on the connection', async () => {
    const rows = await runPrepared<{ n: number }>(db, statement(), [41, 'server_version_num']);
    expect(rows).toEqual([{ n: 42, setting: expect.stringMatching(/^\d+$/) }]);
    // Twice: a named statement is reused, an unnamed one parsed again; the answers match.
    const s = statement();
    expect(await runPrepared(db, s, [1, 'server_version_num'])).toEqual(
      await runPrepared(db, s, [1, 'server_version_num']),
    );
    expect(await preparedCount(db)).toBe(mode === 'session' ? 2 : 0);
  });

  test('statement_timeout holds inside a transaction; outside one only session mode sets it', async () => {
    const outside = await runPrepared<{ setting: string }>(db, statement(), [0, 'statement_timeout']);
    expect(outside[0]?.setting).toBe(mode === 'session' ? '2s' : '0');
    const inside = await db.$transaction(
      async (tx) => tx.$queryRaw<{ t: string }[]>`SELECT current_setting('statement_timeout') AS t`,
    );
    expect(inside).toEqual([{ t: '2s' }]);
    // SET LOCAL ends with its transaction: the connection carries nothing to the next client.
    const after = await runPrepared<{ setting: string }>(db, statement(), [0, 'statement_timeout']);
    expect(after[0]?.setting).toBe(outside[0]?.setting);
  });
});

test('in transaction mode a statement past the bound inside a transaction is cancelled by the server', async () => {
  const db = open('transaction', 200);
  try {
    await expect(db.$transaction(async (tx) => tx.$queryRaw`SELECT pg_sleep(2)`)).rejects.toThrow(
      /statement timeout/,
    );
    // The connection is clean and usable afterwards.
    expect(await db.$queryRaw`SELECT 1 AS one`).toEqual([{ one: 1 }]);
  } finally {
    await db.$disconnect();
  }
});
