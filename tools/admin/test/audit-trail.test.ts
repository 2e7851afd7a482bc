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

test('audit list filters newest first with a cursor; a bad filter is a usage error', async () => {
  const orgs: string[] = [];
  for (let i = 0; i < 3; i++)
    orgs.push((await ok(['org', 'create', '--name', uniqueName('listed')], env)).id);
  const first = await ok(
    ['audit', 'list', '--action', 'org.create', '--actor', 'cli:alice', '--limit', '2'],
    env,
  );
  expect(first.auditEvents.map((e: { target: { id: string } }) => e.target.id)).toEqual([orgs[2], orgs[1]]);
  expect(first.auditEvents[0]).toMatchObject({
    action: 'org.create',
    actor: { kind: 'cli', id: 'alice', name: 'pnpm admin' },
    target: { type: 'organization' },
    hash: expect.stringMatching(/^[0-9a-f]{64}$/),
  });
  const second = await ok(
    ['audit', 'list', '--action', 'org.*', '--limit', '1', '--cursor', first.next],
    env,
  );
  expect(second.auditEvents.map((e: { target: { id: string } }) => e.target.id)).toEqual([orgs[0]]);
  const one = await ok(['audit', 'list', '--target', `organization:${orgs[1]}`], env);
  expect(one.auditEvents).toHaveLength(1);
  const bad = await admin(['audit', 'list', '--since', 'last tuesday'], env);
  expect([bad.code, bad.json.error]).toEqual([2, expect.stringContaining('--since')]);
});

test('audit verify holds, then names the first row altered directly in the database (exit 1)', async () => {
  const verified = await ok(['audit', 'verify'], env);
  expect(verified).toEqual({ verified: await pdb.db.auditEvent.count() });
  const victim = await pdb.db.auditEvent.findFirstOrThrow({ where: { action: 'org.set_status' } });
  await pdb.db
    .$executeRaw`UPDATE audit_events SET changes = '{"status":{"from":null,"to":"ACTIVE"}}' WHERE seq = ${victim.seq}`;
  try {
    const r = await admin(['audit', 'verify'], env);
    expect(r.code).toBe(1);
    expect(r.json.error).toContain(`seq ${victim.seq} (id ${victim.id})`);
  } finally {
    await pdb.db.auditEvent.update({
      where: { seq: victim.seq },
      data: { changes: victim.changes as object },
    });
  }
  expect((await admin(['audit', 'verify'], env)).code).toBe(0);
});

test('audit export writes every row since a time as JSON lines, oldest first', async () => {
  const { runCli } = await import('../src/cli');
  const { createAdminContext } = await import('../src/context');
  const since = new Date().toISOString();
  const org = (await ok(['org', 'create', '--name', uniqueName('exported')], env)).id;
  const run = (args: string[]) =>
    runCli(args, { ...process.env, ...env }, (e) => createAdminContext(e, () => Date.now()));
  const all = await run(['audit', 'export']);
  expect(all.code).toBe(0);
  const lines = all.stdout.split('\n').map((l) => JSON.parse(l));
  expect(lines.length).toBe(await pdb.db.auditEvent.count());
  expect(lines.map((l) => Number(l.seq))).toEqual([...lines.map((l) => Number(l.seq))].sort((a, b) => a - b));
  const recent = await run(['audit', 'export', '--since', since]);
  const recentLines = recent.stdout.split('\n').map((l) => JSON.parse(l));
  expect(recentLines.map((l) => l.target.id)).toContain(org);
  expect(recentLines.every((l) => l.at >= since)).toBe(true);
  const future = await run(['audit', 'export', '--since', '2999-01-01T00:00:00Z']);
  expect([future.code, future.stdout]).toEqual([0, '']);
});
