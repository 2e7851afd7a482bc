// A change over the API is one transaction with what decides and records it: the If-Match check runs in it with the
// resource locked (two PATCHes naming one ETag: one applies, the other is 412), and an Idempotency-Key's answer is
// stored in it (an answer that cannot be stored undoes the change, so a retry applies it exactly once).
import { uniqueName } from '@svc/testkit';
import { call, type ManagementHost, operatorKey, startManagement } from './kit';

let host: ManagementHost;
let editor: string;
beforeAll(async () => {
  host = await startManagement();
  editor = (await operatorKey(host, 'editor')).secret;
});
afterAll(async () => {
  await host?.close();
});

const orgs = (name: string) => host.deps.db.organization.count({ where: { name } });

test('two concurrent PATCHes with the same If-Match: exactly one applies, the other is 412', async () => {
  for (let round = 0; round < 4; round++) {
    const org = await call(host.url, 'POST', '/v1/organizations', {
      key: editor,
      body: { name: uniqueName('ifmatch') },
    });
    const path = `/v1/organizations/${org.body.id}`;
    const etag = (await call(host.url, 'GET', path, { key: editor })).headers.get('etag')!;
    const both = await Promise.all(
      [0, 1].map(() =>
        call(host.url, 'PATCH', path, {
          key: editor,
          body: { status: 'DISABLED' },
          headers: { 'if-match': etag },
        }),
      ),
    );
    expect(both.map((a) => a.status).sort()).toEqual([200, 412]);
    expect(both.find((a) => a.status === 412)!.body.type).toMatch(/precondition-failed$/);
    const changes = await host.deps.db.auditEvent.count({
      where: { action: 'org.set_status', targetId: org.body.id },
    });
    expect(changes).toBe(1);
  }
});

test('an Idempotency-Key answer that cannot be stored undoes its change; the retry applies it once', async () => {
  const name = uniqueName('idem-atomic');
  const key = uniqueName('key');
  const fn = uniqueName('refuse_answer').replace(/[^a-z0-9_]/gi, '_');
  const db = host.deps.db;
  // Refuses storing this one key's answer, as a crash between the change and its answer would lose it.
  await db.$executeRawUnsafe(`
    CREATE FUNCTION ${fn}() RETURNS trigger AS $$
      BEGIN RAISE EXCEPTION 'answer refused by the test'; END $$ LANGUAGE plpgsql`);
  await db.$executeRawUnsafe(`
    CREATE TRIGGER ${fn} BEFORE UPDATE ON idempotency_records FOR EACH ROW
    WHEN (NEW.key = '${key}' AND NEW.status IS NOT NULL) EXECUTE FUNCTION ${fn}()`);
  let first: Awaited<ReturnType<typeof call>>;
  try {
    first = await call(host.url, 'POST', '/v1/organizations', {
      key: editor,
      body: { name },
      headers: { 'idempotency-key': key },
    });
  } finally {
    await db.$executeRawUnsafe(`DROP TRIGGER ${fn} ON idempotency_records`);
    await db.$executeRawUnsafe(`DROP FUNCTION ${fn}()`);
  }
  expect(first.status).toBeGreaterThanOrEqual(500);
  expect(await orgs(name)).toBe(0);
  const retry = await call(host.url, 'POST', '/v1/organizations', {
    key: editor,
    body: { name },
    headers: { 'idempotency-key': key },
  });
  expect(retry.status).toBe(201);
  const replay = await call(host.url, 'POST', '/v1/organizations', {
    key: editor,
    body: { name },
    headers: { 'idempotency-key': key },
  });
  expect([replay.status, replay.body, replay.headers.get('idempotent-replayed')]).toEqual([
    201,
    retry.body,
    'true',
  ]);
  expect(await orgs(name)).toBe(1);
});
