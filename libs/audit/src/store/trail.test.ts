// The append, the chain and the trail's reads against real PostgreSQL (a private database: these tests alter and cut
// the whole trail): concurrent appends from separate pools, a change refused when its row cannot be written, verify
// naming a row altered in the database, list filters and cursor, export, and retention on a settable clock.
import { createPrisma } from '@svc/db';
import { openPrivateDb, type PrivateDb, settableClock, TEST_SIDE_DB_BOUNDS } from '@svc/testkit';
import { AuditUnavailableError } from '../domain/errors';
import { exportAuditEvents, listAuditEvents, sweepAuditRetention, verifyAuditTrail } from '../domain/trail';
import type { AuditContext } from '../domain/types';
import { createAuditedChanges, runAudited } from './append';
import { createAuditTrailStore } from './trail';

let pdb: PrivateDb;
const cli: AuditContext = { actor: { kind: 'cli', id: 'tester', name: 'pnpm admin' } };
const trail = () => ({ auditTrail: createAuditTrailStore(pdb.db) });

beforeAll(async () => {
  pdb = await openPrivateDb({ prefix: 'audit' });
});
afterAll(async () => {
  await pdb?.drop();
});

/** Creates an organization named `name` and records it, in one audited transaction over `db`. */
function createOrg(db = pdb.db, name = `org-${Math.random()}`, context = cli) {
  return runAudited(db, { context, clock: Date.now, bind: (tx) => tx }, async (tx, audit) => {
    const org = await tx.organization.create({ data: { name }, select: { id: true } });
    audit.record({
      action: 'org.create',
      target: { type: 'organization', id: org.id },
      changes: { name: { from: null, to: name } },
    });
    return org.id;
  });
}

test('appends from many pools at once keep one unbroken chain: seq strictly 1..N, each chained to the one before', async () => {
  const pools = Array.from({ length: 4 }, () => createPrisma(pdb.url, TEST_SIDE_DB_BOUNDS));
  try {
    await Promise.all(pools.flatMap((db) => Array.from({ length: 10 }, () => createOrg(db))));
  } finally {
    await Promise.all(pools.map((db) => db.$disconnect()));
  }
  const rows = await pdb.db.auditEvent.findMany({ orderBy: { seq: 'asc' } });
  expect(rows.map((r) => Number(r.seq))).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
  expect(await pdb.db.organization.count()).toBe(40);
  expect(await verifyAuditTrail(trail())).toEqual({ ok: true, verified: 40 });
});

test('a change whose audit row cannot be written is refused and did not happen', async () => {
  const name = `refused-${Math.random()}`;
  await pdb.db.$executeRawUnsafe(`
    CREATE OR REPLACE FUNCTION refuse_audit() RETURNS trigger AS $$
      BEGIN RAISE EXCEPTION 'audit writes refused by the test'; END $$ LANGUAGE plpgsql`);
  await pdb.db.$executeRawUnsafe(
    'CREATE TRIGGER refuse_audit BEFORE INSERT ON audit_events FOR EACH ROW EXECUTE FUNCTION refuse_audit()',
  );
  try {
    const head = await trail().auditTrail.head();
    const err = await createOrg(pdb.db, name).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuditUnavailableError);
    expect(await pdb.db.organization.count({ where: { name } })).toBe(0);
    expect(await trail().auditTrail.head()).toEqual(head);
  } finally {
    await pdb.db.$executeRawUnsafe('DROP TRIGGER refuse_audit ON audit_events');
  }
  await createOrg(pdb.db, name);
  expect(await pdb.db.organization.count({ where: { name } })).toBe(1);
});

test('verify names the first row altered directly in the database, and holds again once it is restored', async () => {
  const rows = await pdb.db.auditEvent.findMany({ orderBy: { seq: 'asc' }, take: 5 });
  const victim = rows[3]!;
  await pdb.db.auditEvent.update({ where: { seq: victim.seq }, data: { actorId: 'someone-else' } });
  try {
    expect(await verifyAuditTrail(trail())).toMatchObject({
      ok: false,
      verified: 3,
      broken: { seq: victim.seq.toString(), id: victim.id },
    });
  } finally {
    await pdb.db.auditEvent.update({ where: { seq: victim.seq }, data: { actorId: victim.actorId } });
  }
  expect(await verifyAuditTrail(trail())).toMatchObject({ ok: true });
  // A row deleted from the new end: the head no longer matches.
  const last = await pdb.db.auditEvent.findFirstOrThrow({ orderBy: { seq: 'desc' } });
  await pdb.db.auditEvent.delete({ where: { seq: last.seq } });
  try {
    expect(await verifyAuditTrail(trail())).toMatchObject({
      ok: false,
      broken: { seq: (last.seq - 1n).toString() },
    });
  } finally {
    await pdb.db.auditEvent.create({ data: last as never });
  }
  expect(await verifyAuditTrail(trail())).toMatchObject({ ok: true });
});

test('list reads newest first with filters and a cursor; export gives every row since a time, oldest first', async () => {
  const mine: AuditContext = {
    actor: { kind: 'operator_key', id: `ok_${Math.random()}`, name: 'ci' },
    requestId: 'r1',
  };
  const ids = [
    await createOrg(pdb.db, 'a', mine),
    await createOrg(pdb.db, 'b', mine),
    await createOrg(pdb.db, 'c', mine),
  ];
  const first = await listAuditEvents(trail(), { actor: `operator_key:${mine.actor.id}`, limit: 2 });
  expect(first.auditEvents.map((e) => e.target.id)).toEqual([ids[2], ids[1]]);
  expect(first.auditEvents[0]).toMatchObject({ actor: mine.actor, requestId: 'r1', action: 'org.create' });
  expect(first.next).toBeDefined();
  const second = await listAuditEvents(trail(), { actor: mine.actor.id, limit: 2, cursor: first.next });
  expect(second.auditEvents.map((e) => e.target.id)).toEqual([ids[0]]);
  expect(second.next).toBeUndefined();
  expect((await listAuditEvents(trail(), { target: `organization:${ids[1]}` })).auditEvents).toHaveLength(1);
  expect(
    (await listAuditEvents(trail(), { action: 'org.*', actor: mine.actor.id })).auditEvents,
  ).toHaveLength(3);
  expect(
    (await listAuditEvents(trail(), { action: 'app.create', actor: mine.actor.id })).auditEvents,
  ).toHaveLength(0);
  const future = new Date(Date.now() + 3_600_000).toISOString();
  expect((await listAuditEvents(trail(), { since: future })).auditEvents).toHaveLength(0);
  for (const bad of [
    { since: 'yesterday' },
    { limit: 0 },
    { limit: 201 },
    { cursor: 'abc' },
    { action: 'DROP TABLE' },
  ]) {
    await expect(listAuditEvents(trail(), bad)).rejects.toMatchObject({ name: 'AuditQueryError' });
  }
  const exported = [];
  for await (const e of exportAuditEvents(trail(), {})) exported.push(e);
  expect(exported.map((e) => Number(e.seq))).toEqual(exported.map((_, i) => i + 1));
  expect(exported.slice(-3).map((e) => e.target.id)).toEqual(ids);
});

test('retention cuts only the old end, records the cut as a row of its own, and verify still holds', async () => {
  const clock = settableClock(Date.now());
  const worker: AuditContext = { actor: { kind: 'worker', id: 'audit-retention', name: 'worker' } };
  // Nothing is old enough yet: nothing is cut and no row is written.
  const before = await trail().auditTrail.head();
  expect(await sweepAuditRetention(trail(), { days: 365, clock, context: worker })).toEqual({ deleted: 0 });
  expect(await trail().auditTrail.head()).toEqual(before);
  // A year and a bit later, a few new rows: everything before them goes.
  clock.advance(366 * 86_400_000);
  const changes = createAuditedChanges(pdb.db, { context: cli, clock, bind: (tx) => tx });
  const kept = [];
  for (let i = 0; i < 3; i++) {
    kept.push(
      await changes.run(async (tx, audit) => {
        const org = await tx.organization.create({ data: { name: `late-${i}` }, select: { id: true } });
        audit.record({ action: 'org.create', target: { type: 'organization', id: org.id } });
        return org.id;
      }),
    );
  }
  const { deleted } = await sweepAuditRetention(trail(), { days: 365, clock, context: worker });
  expect(deleted).toBe(Number(before.seq));
  const rows = await pdb.db.auditEvent.findMany({ orderBy: { seq: 'asc' } });
  expect(rows.map((r) => r.targetId)).toEqual([...kept, 'audit_events']);
  const cut = rows[rows.length - 1]!;
  expect(cut).toMatchObject({ action: 'audit.retention', actorKind: 'worker' });
  expect(cut.changes).toMatchObject({
    firstSeq: { to: rows[0]!.seq.toString() },
    anchor: { to: rows[0]!.prevHash },
  });
  expect(await verifyAuditTrail(trail())).toEqual({ ok: true, verified: 4 });
  // Deleting the kept old end by hand is caught: the retention row anchors another first row.
  await pdb.db.auditEvent.delete({ where: { seq: rows[0]!.seq } });
  expect(await verifyAuditTrail(trail())).toMatchObject({
    ok: false,
    broken: { seq: rows[1]!.seq.toString() },
  });
  await pdb.db.auditEvent.create({ data: rows[0]! as never });
  // Another year with nothing new: every row goes and the retention row anchors itself.
  clock.advance(366 * 86_400_000);
  expect((await sweepAuditRetention(trail(), { days: 365, clock, context: worker })).deleted).toBe(4);
  expect(await verifyAuditTrail(trail())).toEqual({ ok: true, verified: 1 });
});
