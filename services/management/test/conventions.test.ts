// The REST conventions over the command table: Idempotency-Key on POST (replayed, refused with another body, one
// run of concurrent identical requests), ETag and If-Match (412, nothing changed), If-None-Match (304), and cursor
// pagination of collections.
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

test('Idempotency-Key: the same key and body answers the first answer again and changes nothing', async () => {
  const name = uniqueName('idem');
  const key = uniqueName('key');
  const first = await call(host.url, 'POST', '/v1/organizations', {
    key: editor,
    body: { name },
    headers: { 'idempotency-key': key },
  });
  expect(first.status).toBe(201);
  const again = await call(host.url, 'POST', '/v1/organizations', {
    key: editor,
    body: { name },
    headers: { 'idempotency-key': key },
  });
  expect([again.status, again.body, again.headers.get('location')]).toEqual([
    201,
    first.body,
    first.headers.get('location'),
  ]);
  expect(again.headers.get('idempotent-replayed')).toBe('true');
  expect(await orgs(name)).toBe(1);
  // Another body with the same key: 422, nothing created.
  const other = await call(host.url, 'POST', '/v1/organizations', {
    key: editor,
    body: { name: `${name}-2` },
    headers: { 'idempotency-key': key },
  });
  expect(other.status).toBe(422);
  expect(other.body.type).toMatch(/idempotency-key-reused$/);
  expect(await orgs(`${name}-2`)).toBe(0);
  // The key is per operator key: another key with the same Idempotency-Key runs its own request.
  const second = (await operatorKey(host, 'editor')).secret;
  const theirs = await call(host.url, 'POST', '/v1/organizations', {
    key: second,
    body: { name },
    headers: { 'idempotency-key': key },
  });
  expect(theirs.status).toBe(201);
  expect(theirs.body.id).not.toBe(first.body.id);
  // A refusal is the answer too: replayed, and nothing runs a second time.
  const badKey = uniqueName('key');
  const refused = await call(host.url, 'POST', '/v1/sectors', {
    key: editor,
    body: { org: '00000000-0000-4000-8000-000000000000', name: 's' },
    headers: { 'idempotency-key': badKey },
  });
  expect(refused.status).toBe(404);
  const refusedAgain = await call(host.url, 'POST', '/v1/sectors', {
    key: editor,
    body: { org: '00000000-0000-4000-8000-000000000000', name: 's' },
    headers: { 'idempotency-key': badKey },
  });
  expect([refusedAgain.status, refusedAgain.body]).toEqual([404, refused.body]);
  expect(refusedAgain.headers.get('content-type')).toMatch(/problem\+json/);
});

test('Idempotency-Key: of concurrent identical requests exactly one runs', async () => {
  const name = uniqueName('race');
  const key = uniqueName('key');
  const answers = await Promise.all(
    Array.from({ length: 8 }, () =>
      call(host.url, 'POST', '/v1/organizations', {
        key: editor,
        body: { name },
        headers: { 'idempotency-key': key },
      }),
    ),
  );
  expect(await orgs(name)).toBe(1);
  const created = answers.filter((a) => a.status === 201);
  expect(created.length).toBeGreaterThanOrEqual(1);
  expect(new Set(created.map((a) => a.body.id)).size).toBe(1);
  for (const a of answers.filter((x) => x.status !== 201)) {
    expect(a.status).toBe(409);
    expect(a.body.type).toMatch(/idempotency-in-progress$/);
  }
  // Once it finished, every repeat is the first answer.
  const after = await call(host.url, 'POST', '/v1/organizations', {
    key: editor,
    body: { name },
    headers: { 'idempotency-key': key },
  });
  expect(after.body.id).toBe(created[0]!.body.id);
  // A malformed key is refused before anything runs.
  const bad = await call(host.url, 'POST', '/v1/organizations', {
    key: editor,
    body: { name: `${name}-x` },
    headers: { 'idempotency-key': 'x'.repeat(300) },
  });
  expect(bad.status).toBe(400);
  expect(await orgs(`${name}-x`)).toBe(0);
});

test('ETag and If-Match: a stale tag is 412 and changes nothing; the current one applies; If-None-Match is 304', async () => {
  const org = await call(host.url, 'POST', '/v1/organizations', {
    key: editor,
    body: { name: uniqueName('etag') },
  });
  const path = `/v1/organizations/${org.body.id}`;
  const read = await call(host.url, 'GET', path, { key: editor });
  const etag = read.headers.get('etag')!;
  expect(etag).toMatch(/^"[\w-]+"$/);
  const unchanged = await call(host.url, 'GET', path, { key: editor, headers: { 'if-none-match': etag } });
  expect(unchanged.status).toBe(304);
  const applied = await call(host.url, 'PATCH', path, {
    key: editor,
    body: { status: 'DISABLED' },
    headers: { 'if-match': etag },
  });
  expect([applied.status, applied.body]).toEqual([200, { id: org.body.id, status: 'DISABLED' }]);
  const stale = await call(host.url, 'PATCH', path, {
    key: editor,
    body: { status: 'ACTIVE' },
    headers: { 'if-match': etag },
  });
  expect(stale.status).toBe(412);
  expect(stale.body.type).toMatch(/precondition-failed$/);
  expect((await call(host.url, 'GET', path, { key: editor })).body.organization.status).toBe('DISABLED');
  const fresh = (await call(host.url, 'GET', path, { key: editor })).headers.get('etag')!;
  expect(fresh).not.toBe(etag);
  // A subresource's PATCH is checked against its resource's tag (the application).
  const sector = await call(host.url, 'POST', '/v1/sectors', {
    key: editor,
    body: { org: org.body.id, name: 's' },
  });
  const anchor = uniqueName('etag')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-');
  await call(host.url, 'POST', '/v1/applications', {
    key: editor,
    body: { sector: sector.body.id, anchor, name: ['en-US=A'] },
  });
  const appTag = (await call(host.url, 'GET', `/v1/applications/${anchor}`, { key: editor })).headers.get(
    'etag',
  )!;
  await call(host.url, 'PATCH', `/v1/applications/${anchor}/claims`, {
    key: editor,
    body: { email: 'REQUIRED' },
  });
  const late = await call(host.url, 'PATCH', `/v1/applications/${anchor}/status`, {
    key: editor,
    body: { status: 'SUSPENDED' },
    headers: { 'if-match': appTag },
  });
  expect(late.status).toBe(412);
  expect(
    (await call(host.url, 'GET', `/v1/applications/${anchor}`, { key: editor })).body.application.status,
  ).toBe('ACTIVE');
});

test('pagination: ?limit= pages with `next` until the last page; every item once, in order; bad limits are 400', async () => {
  const org = await call(host.url, 'POST', '/v1/organizations', {
    key: editor,
    body: { name: uniqueName('page') },
  });
  const made: string[] = [];
  for (let i = 0; i < 5; i++)
    made.push(
      (
        await call(host.url, 'POST', '/v1/sectors', {
          key: editor,
          body: { org: org.body.id, name: `s${i}` },
        })
      ).body.id,
    );
  const seen: string[] = [];
  let next: string | undefined;
  let pages = 0;
  do {
    const q = `/v1/sectors?org=${org.body.id}&limit=2${next ? `&cursor=${next}` : ''}`;
    const page = await call(host.url, 'GET', q, { key: editor });
    expect(page.status).toBe(200);
    expect(page.body.sectors.length).toBeLessThanOrEqual(2);
    seen.push(...page.body.sectors.map((s: { id: string }) => s.id));
    next = page.body.next;
    pages++;
  } while (next && pages < 10);
  expect(pages).toBe(3);
  expect(seen).toEqual(made);
  for (const bad of ['limit=0', 'limit=201', 'limit=x', 'cursor=%21%21']) {
    const res = await call(host.url, 'GET', `/v1/sectors?org=${org.body.id}&${bad}`, { key: editor });
    expect([bad, res.status]).toEqual([bad, 400]);
  }
});
