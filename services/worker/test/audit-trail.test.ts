// The worker's changes in the audit trail: a scheduled key step and a sweep that ends sessions each write their rows
// in their own transaction, acting as the worker; a step whose row cannot be written changes no key; and the
// retention sweep cuts the trail's old end in batches while `verify` holds. A private database and a settable clock.
import { verifyAuditTrail } from '@svc/audit';
import { createAuditTrailStore } from '@svc/audit/stores';
import { provisionApp, settableClock, useInfra } from '@svc/testkit';
import { createWorkerPorts } from '../src/deps';
import { runRotationTick } from '../src/jobs/rotate-keys';
import { runSweeps } from '../src/jobs/sweeps';
import { openPrivateDb, type PrivateDb, sessionRow, testConfig } from './support';

const DAY = 86_400_000;
const schedule = { rotateEverySeconds: 2 * 86_400, prepublishSeconds: 3_600, keyCacheTtlMs: 30_000 };
let pdb: PrivateDb;
const clock = settableClock();

beforeAll(async () => {
  pdb = await openPrivateDb();
});
const infra = useInfra(() => ({ over: pdb.db, clock }));
afterAll(() => pdb.drop());

const ports = () => createWorkerPorts({ db: pdb.db, redis: infra.redis, kek: infra.issuance.kek, clock });
const tick = () => runRotationTick({ ports: ports(), clock, schedule, batchSize: 10 });
const sweep = (retention = testConfig().retention) =>
  runSweeps({ ports: ports(), clock, batchSize: 3, maxBatches: 100, retention });
const verify = () => verifyAuditTrail({ auditTrail: createAuditTrailStore(pdb.db) });

test('a scheduled key step writes its rows as the worker, naming the application by anchor', async () => {
  clock.set(Date.now());
  const app = await provisionApp(infra);
  await tick(); // the OIDC key set's first key, and nothing due for the application yet
  clock.advance(2 * DAY);
  await tick();
  const rows = await pdb.db.auditEvent.findMany({
    where: { actorKind: 'worker', targetId: app.anchor },
    orderBy: { seq: 'asc' },
  });
  expect(rows.map((r) => [r.actorId, r.action, r.targetType])).toEqual([
    ['rotate-keys', 'keys.prepublish', 'application'],
  ]);
  const next = await pdb.db.signingKey.findFirstOrThrow({
    where: { applicationId: app.applicationId, status: 'NEXT' },
  });
  expect(rows[0]!.changes).toEqual({ nextKid: { from: null, to: next.kid } });
  clock.advance(2 * 3_600_000);
  await tick();
  const rotated = await pdb.db.auditEvent.findFirstOrThrow({
    where: { actorKind: 'worker', targetId: app.anchor, action: 'keys.rotate' },
  });
  expect(rotated.changes).toMatchObject({ signingKid: { to: next.kid }, mode: { to: 'scheduled' } });
  expect(await verify()).toMatchObject({ ok: true });
});

test('a key step whose audit row cannot be written changes no key, and runs once the trail is back', async () => {
  const app = await provisionApp(infra);
  clock.advance(2 * DAY);
  const keysOf = () =>
    pdb.db.signingKey.findMany({
      where: { applicationId: app.applicationId },
      select: { kid: true, status: true },
    });
  const before = await keysOf();
  await pdb.db.$executeRawUnsafe(`
    CREATE OR REPLACE FUNCTION refuse_audit() RETURNS trigger AS $$
      BEGIN RAISE EXCEPTION 'audit writes refused by the test'; END $$ LANGUAGE plpgsql`);
  await pdb.db.$executeRawUnsafe(
    'CREATE TRIGGER refuse_audit BEFORE INSERT ON audit_events FOR EACH ROW EXECUTE FUNCTION refuse_audit()',
  );
  try {
    await expect(tick()).rejects.toThrow('key rotation failed');
    expect(await keysOf()).toEqual(before);
  } finally {
    await pdb.db.$executeRawUnsafe('DROP TRIGGER refuse_audit ON audit_events');
  }
  await tick();
  expect((await keysOf()).length).toBe(before.length + 1);
});

test('a sweep that ends sessions records them; retention cuts the old end in batches and verify still holds', async () => {
  const app = await provisionApp(infra);
  const account = await pdb.db.account.create({ data: {} });
  const lapsed = sessionRow({
    applicationId: app.applicationId,
    accountId: account.id,
    expiresAt: new Date(clock() - 1000),
  });
  await pdb.db.session.create({ data: lapsed });
  await sweep();
  const ended = await pdb.db.auditEvent.findFirstOrThrow({ where: { action: 'sessions.expire' } });
  expect(ended).toMatchObject({ actorKind: 'worker', actorId: 'sweep' });
  expect(ended.changes).toMatchObject({
    sids: { to: [lapsed.id] },
    status: { from: 'ACTIVE', to: 'EXPIRED' },
  });

  const total = await pdb.db.auditEvent.count();
  // A year and a day later, with one fresh change: every older row goes, three at a time, each cut its own row.
  clock.advance(366 * DAY);
  await provisionApp(infra);
  const fresh = await pdb.db.auditEvent.count({ where: { at: { gte: new Date(clock() - DAY) } } });
  const result = await sweep({ ...testConfig().retention, auditDays: 365 });
  expect(result.audit_events).toBe(total);
  const cuts = await pdb.db.auditEvent.count({ where: { action: 'audit.retention' } });
  expect(cuts).toBe(Math.ceil(total / 3));
  expect(await pdb.db.auditEvent.count()).toBe(fresh + cuts);
  expect(await verify()).toEqual({ ok: true, verified: fresh + cuts });
});
