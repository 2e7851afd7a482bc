// The audit trail of API changes: each change writes its row in the same transaction, naming the operator key, the
// request id, the source address and the user agent; a replayed Idempotency-Key writes none; and a change whose row
// cannot be written is refused (503) and did not happen. On a private database: a trigger refuses audit writes.
import { openPrivateDb, type PrivateDb, uniqueName } from '@svc/testkit';
import { call, type ManagementHost, managementEnv, operatorKey, startManagement } from './kit';

let pdb: PrivateDb;
let host: ManagementHost;
let key: { id: string; secret: string };
beforeAll(async () => {
  pdb = await openPrivateDb({ prefix: 'mgmt_audit' });
  host = await startManagement(managementEnv({ DATABASE_URL: pdb.url }));
  key = await operatorKey(host, 'owner');
});
afterAll(async () => {
  await host?.close();
  await pdb?.drop();
});

const rowsFor = (targetId: string) =>
  pdb.db.auditEvent.findMany({ where: { targetId }, orderBy: { seq: 'asc' } });

test('an API change writes its audit row: the operator key, the request id, the source address, the user agent', async () => {
  const requestId = uniqueName('req');
  const made = await call(host.url, 'POST', '/v1/organizations', {
    key: key.secret,
    body: { name: uniqueName('org') },
    headers: {
      'x-request-id': requestId,
      'user-agent': 'terraform-provider/1.2',
      'idempotency-key': requestId,
    },
  });
  expect(made.status).toBe(201);
  expect(made.headers.get('x-request-id')).toBe(requestId);
  const rows = await rowsFor(made.body.id);
  expect(rows).toHaveLength(1);
  expect(rows[0]).toMatchObject({
    action: 'org.create',
    targetType: 'organization',
    actorKind: 'operator_key',
    actorId: key.id,
    requestId,
    userAgent: 'terraform-provider/1.2',
  });
  expect(rows[0]!.actorName).toMatch(/^op-owner/);
  expect(rows[0]!.sourceAddress).toMatch(/127\.0\.0\.1/);
  // The replay changes nothing and writes no row.
  const replay = await call(host.url, 'POST', '/v1/organizations', {
    key: key.secret,
    body: { name: (await pdb.db.organization.findUniqueOrThrow({ where: { id: made.body.id } })).name },
    headers: {
      'idempotency-key': requestId,
      'user-agent': 'terraform-provider/1.2',
      'x-request-id': requestId,
    },
  });
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  expect(await rowsFor(made.body.id)).toHaveLength(1);
});

test('an operator key made over HTTP is audited without its secret', async () => {
  const made = await call(host.url, 'POST', '/v1/operator-keys', {
    key: key.secret,
    body: { name: uniqueName('ci'), role: 'editor' },
  });
  expect(made.status).toBe(201);
  const rows = await rowsFor(made.body.operatorKey.id);
  expect(rows.map((r) => r.action)).toEqual(['operator_key.create']);
  expect(rows[0]!.actorId).toBe(key.id);
  expect(rows[0]!.changes).toMatchObject({ secret: { from: null, to: '<redacted>' } });
  expect(JSON.stringify(rows[0]!.changes)).not.toContain(made.body.secret.slice(3, 20));
});

test('a change whose audit row cannot be written is refused with 503 and did not happen', async () => {
  const name = uniqueName('refused');
  await pdb.db.$executeRawUnsafe(`
    CREATE OR REPLACE FUNCTION refuse_audit() RETURNS trigger AS $$
      BEGIN RAISE EXCEPTION 'audit writes refused by the test'; END $$ LANGUAGE plpgsql`);
  await pdb.db.$executeRawUnsafe(
    'CREATE TRIGGER refuse_audit BEFORE INSERT ON audit_events FOR EACH ROW EXECUTE FUNCTION refuse_audit()',
  );
  try {
    const refused = await call(host.url, 'POST', '/v1/organizations', { key: key.secret, body: { name } });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(refused.body.type).toMatch(/unavailable$/);
    expect(refused.text).not.toContain('refused by the test');
    expect(await pdb.db.organization.count({ where: { name } })).toBe(0);
  } finally {
    await pdb.db.$executeRawUnsafe('DROP TRIGGER refuse_audit ON audit_events');
  }
  const after = await call(host.url, 'POST', '/v1/organizations', { key: key.secret, body: { name } });
  expect(after.status).toBe(201);
  expect(await pdb.db.organization.count({ where: { name } })).toBe(1);
});
