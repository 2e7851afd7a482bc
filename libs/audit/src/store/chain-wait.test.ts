// Waiting for the chain head's lock against real PostgreSQL (a private database: these tests hold the one chain
// head): a lock held past the statement timeout is waited for under the chain's own limit, a process queues its
// extra writers in itself, and a wait past that limit refuses the change with nothing changed.
import { createPrisma, type Db } from '@svc/db';
import { openPrivateDb, type PrivateDb, waitFor } from '@svc/testkit';
import { AuditUnavailableError } from '../domain/errors';
import { sweepAuditRetention, verifyAuditTrail } from '../domain/trail';
import type { AuditContext } from '../domain/types';
import { type ChainWaitBounds, runAudited } from './append';
import { createAuditTrailStore } from './trail';

/** Low on purpose: every wait below outlasts it several times. */
const STATEMENT_MS = 300;
const cli: AuditContext = { actor: { kind: 'cli', id: 'tester', name: 'pnpm admin' } };
let pdb: PrivateDb;

beforeAll(async () => {
  pdb = await openPrivateDb({ prefix: 'auditwait' });
});
afterAll(async () => {
  await pdb?.drop();
});

/** A process's pool, bounded as a host is but with a short statement timeout. */
const openPool = () =>
  createPrisma(pdb.url, { poolMax: 10, connectTimeoutMs: 15_000, statementTimeoutMs: STATEMENT_MS });

function createOrg(db: Db, chainWait: ChainWaitBounds, name = `org-${Math.random()}`) {
  return runAudited(db, { context: cli, clock: Date.now, bind: (tx) => tx, chainWait }, async (tx, audit) => {
    const org = await tx.organization.create({ data: { name }, select: { id: true } });
    audit.record({ action: 'org.create', target: { type: 'organization', id: org.id }, changes: {} });
    return org.id;
  });
}

/** Backends of this database waiting for a lock (the chain head's row lock, here). */
async function lockWaiters(): Promise<number> {
  const rows = await pdb.db.$queryRaw<{ n: number }[]>`
    SELECT count(*)::int AS n FROM pg_stat_activity
    WHERE datname = current_database() AND wait_event_type = 'Lock'`;
  return rows[0]?.n ?? 0;
}

/**
 * Holds the chain head's lock in a transaction of its own until `until` says so, as a slow audited change on a
 * loaded machine would; `held` resolves when the lock is taken.
 */
function holdChainHead(until: () => Promise<boolean>) {
  let taken!: () => void;
  const held = new Promise<void>((r) => {
    taken = r;
  });
  const done = pdb.db.$transaction(
    async (tx) => {
      await tx.$queryRaw`SELECT seq FROM audit_chain_head WHERE id = 1 FOR UPDATE`;
      taken();
      await waitFor('the moment to let the chain head go', until, 60_000);
    },
    { maxWait: 10_000, timeout: 90_000 },
  );
  return { held, done };
}

test('32 concurrent changes from two processes wait out a chain lock held 3 statement timeouts: none refused, seq contiguous, at most 4 per process waiting in PostgreSQL', async () => {
  const pools = [openPool(), openPool()];
  const bounds: ChainWaitBounds = { waitMs: 20_000, writersPerProcess: 4 };
  const before = await pdb.db.auditEvent.count();
  let mostWaiting = 0;
  const since = Date.now();
  const holder = holdChainHead(async () => {
    const n = await lockWaiters();
    mostWaiting = Math.max(mostWaiting, n);
    return n > 0 && Date.now() - since > 3 * STATEMENT_MS;
  });
  await holder.held;
  try {
    const outcomes = await Promise.allSettled(
      pools.flatMap((db) => Array.from({ length: 16 }, () => createOrg(db, bounds))),
    );
    await holder.done;
    const refused = outcomes.filter((o) => o.status === 'rejected');
    expect(
      refused.map((o) => {
        const r = (o as PromiseRejectedResult).reason;
        return `${r} <- ${r?.cause?.message}`;
      }),
    ).toEqual([]);
  } finally {
    await Promise.all(pools.map((db) => db.$disconnect()));
  }
  expect(mostWaiting).toBeGreaterThan(0);
  expect(mostWaiting).toBeLessThanOrEqual(2 * 4);
  const rows = await pdb.db.auditEvent.findMany({ orderBy: { seq: 'asc' }, select: { seq: true } });
  expect(rows.length - before).toBe(32);
  expect(rows.map((r) => Number(r.seq))).toEqual(Array.from({ length: rows.length }, (_, i) => i + 1));
  const trail = { auditTrail: createAuditTrailStore(pdb.db) };
  expect(await verifyAuditTrail(trail)).toEqual({ ok: true, verified: rows.length });
});

test('a chain lock held past the chain wait limit refuses the change (AuditUnavailableError) and it did not happen', async () => {
  const db = openPool();
  const name = `refused-${Math.random()}`;
  let settled = false;
  const holder = holdChainHead(async () => settled);
  await holder.held;
  try {
    const err = await createOrg(db, { waitMs: 2 * STATEMENT_MS, writersPerProcess: 4 }, name)
      .catch((e: unknown) => e)
      .finally(() => {
        settled = true;
      });
    await holder.done;
    expect(err).toBeInstanceOf(AuditUnavailableError);
    expect(await pdb.db.organization.count({ where: { name } })).toBe(0);
  } finally {
    await db.$disconnect();
  }
});

test('the retention cut waits out a chain lock held 3 statement timeouts as a change does, and verify still holds', async () => {
  for (let i = 0; i < 3; i++) await createOrg(pdb.db, { waitMs: 20_000, writersPerProcess: 4 });
  const db = openPool();
  const since = Date.now();
  let settled = false;
  const holder = holdChainHead(
    async () => settled || ((await lockWaiters()) > 0 && Date.now() - since > 3 * STATEMENT_MS),
  );
  await holder.held;
  try {
    // Four hundred days on, every row is past a one-day retention: the cut takes the oldest two.
    const cut = sweepAuditRetention(
      { auditTrail: createAuditTrailStore(db) },
      { days: 1, clock: () => since + 400 * 86_400_000, context: cli, limit: 2 },
    ).finally(() => {
      settled = true;
    });
    await holder.done;
    expect(await cut).toEqual({ deleted: 2 });
  } finally {
    await db.$disconnect();
  }
  expect(await verifyAuditTrail({ auditTrail: createAuditTrailStore(pdb.db) })).toMatchObject({ ok: true });
});
