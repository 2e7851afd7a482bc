// The admin CLI's changes in the audit trail: each writes its row in the change's transaction, naming the CLI and
// the operating-system user; a change whose row cannot be written exits 3 and did not happen. On a private database,
// since one test makes every audit write fail.
import { openPrivateDb, type PrivateDb, uniqueName } from '@svc/testkit';
import { admin, ok } from './run-admin';

let pdb: PrivateDb;
let env: Record<string, string>;
beforeAll(async () => {
  pdb = await openPrivateDb({ prefix: 'audit_cli' });
  env = { DATABASE_URL: pdb.url, USER: 'alice' };
});
afterAll(async () => {
  await pdb.drop();
});

test('a CLI change writes one row naming the CLI user, with what changed', async () => {
  const name = uniqueName('auditOrg');
  const org = (await ok(['org', 'create', '--name', name], env)).id as string;
  const rows = await pdb.db.auditEvent.findMany({ where: { targetId: org } });
  expect(rows).toHaveLength(1);
  expect(rows[0]).toMatchObject({
    action: 'org.create',
    actorKind: 'cli',
    actorId: 'alice',
    actorName: 'pnpm admin',
    targetType: 'organization',
    changes: { name: { from: null, to: name } },
  });
  await ok(['org', 'set-status', '--org', org, '--status', 'DISABLED'], env);
  const latest = await pdb.db.auditEvent.findFirstOrThrow({ orderBy: { seq: 'desc' } });
  expect(latest).toMatchObject({
    action: 'org.set_status',
    targetId: org,
    changes: { status: { to: 'DISABLED' } },
  });
});

test('a refused change (bad input) writes no row', async () => {
  const before = await pdb.db.auditEvent.count();
  const r = await admin(
    ['org', 'set-status', '--org', '00000000-0000-4000-8000-000000000000', '--status', 'ACTIVE'],
    env,
  );
  expect(r.code).toBe(1);
  expect(await pdb.db.auditEvent.count()).toBe(before);
});

test('when the audit row cannot be written the command exits 3 and nothing changed', async () => {
  await pdb.db.$executeRawUnsafe(`
    CREATE OR REPLACE FUNCTION refuse_audit() RETURNS trigger AS $$
      BEGIN RAISE EXCEPTION 'audit writes refused by the test'; END $$ LANGUAGE plpgsql`);
  await pdb.db.$executeRawUnsafe(
    'CREATE TRIGGER refuse_audit BEFORE INSERT ON audit_events FOR EACH ROW EXECUTE FUNCTION refuse_audit()',
  );
  const name = uniqueName('refusedOrg');
  try {
    const r = await admin(['org', 'create', '--name', name], env);
    expect(r.code).toBe(3);
    expect(r.json).toEqual({
      error: 'refused: the audit trail could not be written, so nothing was changed',
    });
    expect(await pdb.db.organization.count({ where: { name } })).toBe(0);
  } finally {
    await pdb.db.$executeRawUnsafe('DROP TRIGGER refuse_audit ON audit_events');
  }
  await ok(['org', 'create', '--name', name], env);
  expect(await pdb.db.organization.count({ where: { name } })).toBe(1);
});
