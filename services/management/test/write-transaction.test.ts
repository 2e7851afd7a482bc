// A change over the API is one transaction with what decides and records it: the If-Match check runs in it with the
// resource locked (two PATCHes naming one ETag: one applies, the other is 412), and an Idempotency-Key's answer is
// stored in it (an answer that cannot be stored undoes the change, so a retry applies it exactly once).
import { uniqueName } from '@svc/testkit';
import { requestHashOf } from '../src/domain/idempotency';
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

test('a claim left without an answer (its request crashed before its change committed) is taken over after 2 minutes', async () => {
  const op = await operatorKey(host, 'editor');
  const name = uniqueName('abandoned');
  const stale = uniqueName('key');
  const fresh = uniqueName('key');
  // The claims the same requests made, as the host hashes them (method, path and its parameters, body bytes).
  const hashOf = (n: string) =>
    requestHashOf('POST', `/v1/organizations${JSON.stringify({})}`, Buffer.from(JSON.stringify({ name: n })));
  const claimAt = (key: string, n: string, ageMs: number) =>
    host.deps.db.idempotencyRecord.create({
      data: { operatorKeyId: op.id, key, requestHash: hashOf(n), createdAt: new Date(Date.now() - ageMs) },
    });
  await claimAt(stale, name, 3 * 60_000);
  await claimAt(fresh, `${name}-2`, 30_000);
  const post = (key: string, n: string) =>
    call(host.url, 'POST', '/v1/organizations', {
      key: op.secret,
      body: { name: n },
      headers: { 'idempotency-key': key },
    });
  // Its change never committed (it would have stored the answer with it), so the key runs anew.
  const taken = await post(stale, name);
  expect(taken.status).toBe(201);
  expect(await orgs(name)).toBe(1);
  // A younger claim may still belong to a running request: 409 as before.
  const running = await post(fresh, `${name}-2`);
  expect(running.status).toBe(409);
  expect(await orgs(`${name}-2`)).toBe(0);
});
