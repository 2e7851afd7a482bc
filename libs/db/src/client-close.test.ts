// A client made by createPrisma stays closed after $disconnect: a later query (a dependency probe's timer, a handler
// that outlived its host) fails instead of opening a new pool and a connection nothing would ever close.
import { randomBytes } from 'node:crypto';
import { createPrisma, type Db, runPrepared } from './client';

const url = process.env.DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432/test';

let observer: Db;
beforeAll(() => {
  observer = createPrisma(url);
});
afterAll(async () => {
  await observer.$disconnect();
});

/** Sessions PostgreSQL holds under `applicationName` (the closed client's, and any pool made behind its back). */
async function sessionsOf(applicationName: string): Promise<number> {
  const rows = await observer.$queryRaw<{ n: number }[]>`
    SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = ${applicationName}`;
  return rows[0]?.n ?? -1;
}

test('after $disconnect, queries fail and PostgreSQL sees no connection of the client', async () => {
  const applicationName = `client_close_${randomBytes(6).toString('hex')}`;
  const named = new URL(url);
  named.searchParams.set('application_name', applicationName);
  const db = createPrisma(named.toString());
  expect(await db.$queryRaw`SELECT 1 AS one`).toEqual([{ one: 1 }]);
  expect(await sessionsOf(applicationName)).toBe(1);
  await db.$disconnect();

  await expect(db.$queryRaw`SELECT 1 AS one`).rejects.toThrow(/closed/);
  await expect(db.account.findFirst({ select: { id: true } })).rejects.toThrow(/closed/);
  await expect(runPrepared(db, { name: 'client_close_one', text: 'SELECT 1' }, [])).rejects.toThrow();
  // Before the client refused, the first query above had Prisma build a fresh pool whose idle connection stayed.
  expect(await sessionsOf(applicationName)).toBe(0);
  // Closing again is harmless (a host's close and a test's afterAll may both do it).
  await db.$disconnect();
});
