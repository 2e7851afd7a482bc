// Problem details (RFC 9457): bad input points at the member (400), an unknown resource is 404, a conflict 409,
// input the rules refuse 422, a body too large 413, another media type 415, an unknown route 404 and another
// method 405; nothing changes and nothing internal leaks.
import { uniqueName } from '@svc/testkit';
import { call, type ManagementHost, managementEnv, operatorKey, startManagement } from './kit';

let host: ManagementHost;
let editor: string;
beforeAll(async () => {
  host = await startManagement(managementEnv({ MANAGEMENT_BODY_LIMIT_BYTES: '2048' }));
  editor = (await operatorKey(host, 'editor')).secret;
});
afterAll(async () => {
  await host?.close();
});

const problem = (res: { headers: Headers; body: Record<string, unknown> }, status: number, kind: string) => {
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.body).toMatchObject({ status, type: expect.stringMatching(new RegExp(`${kind}$`)) });
  expect(typeof res.body.title).toBe('string');
  expect(typeof res.body.detail).toBe('string');
  expect(JSON.stringify(res.body)).not.toMatch(/at \w+ \(|node_modules|prisma|SELECT/i);
};

async function newSector() {
  const org = await call(host.url, 'POST', '/v1/organizations', {
    key: editor,
    body: { name: uniqueName('org') },
  });
  const sector = await call(host.url, 'POST', '/v1/sectors', {
    key: editor,
    body: { org: org.body.id, name: 's' },
  });
  return sector.body.id as string;
}

test('bad input: 400 with a JSON Pointer at each bad member, in the API words; nothing created', async () => {
  const sector = await newSector();
  const missing = await call(host.url, 'POST', '/v1/applications', {
    key: editor,
    body: { sector, name: ['en-US=A'] },
  });
  problem(missing, 400, 'invalid-input');
  expect(missing.body.errors).toEqual([{ pointer: '/anchor', detail: expect.stringContaining('anchor') }]);
  expect(String(missing.body.detail)).not.toContain('--');

  const unknown = await call(host.url, 'POST', '/v1/organizations', {
    key: editor,
    body: { name: 'x', colour: 'red' },
  });
  problem(unknown, 400, 'invalid-input');
  expect(unknown.body.errors).toEqual([{ pointer: '/colour', detail: expect.any(String) }]);

  const wrongType = await call(host.url, 'POST', '/v1/organizations', {
    key: editor,
    body: { name: { a: 1 } },
  });
  problem(wrongType, 400, 'invalid-input');
  expect(wrongType.body.errors[0].pointer).toBe('/name');

  const notJson = await call(host.url, 'POST', '/v1/organizations', { key: editor, body: '{"name":' });
  problem(notJson, 400, 'invalid-input');
  const anchor = uniqueName('bad')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-');
  const badLocale = await call(host.url, 'POST', '/v1/applications', {
    key: editor,
    body: { sector, anchor, name: ['en-US=A'], defaultLocale: 'zh-CN' },
  });
  problem(badLocale, 400, 'invalid-input');
  expect(badLocale.body.errors[0].pointer).toBe('/defaultLocale');
  expect((await call(host.url, 'GET', `/v1/applications/${anchor}`, { key: editor })).status).toBe(404);
});

test('404 unknown resource, 409 conflict, 422 refused by the rules', async () => {
  const sector = await newSector();
  const gone = await call(host.url, 'GET', '/v1/applications/no-such-app-here', { key: editor });
  problem(gone, 404, 'not-found');
  const anchor = uniqueName('dup')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-');
  const body = { sector, anchor, name: ['en-US=A'] };
  expect((await call(host.url, 'POST', '/v1/applications', { key: editor, body })).status).toBe(201);
  problem(await call(host.url, 'POST', '/v1/applications', { key: editor, body }), 409, 'conflict');
  // An OIDC client needs an OIDC authentication rule: the rules refuse it.
  const refused = await call(host.url, 'POST', '/v1/oidc-clients', {
    key: editor,
    body: { app: anchor, redirectUri: ['https://app.example/cb'] },
  });
  problem(refused, 422, 'refused');
  const rule = await call(
    host.url,
    'DELETE',
    `/v1/applications/${anchor}/rules/00000000-0000-4000-8000-000000000000`,
    {
      key: editor,
    },
  );
  problem(rule, 404, 'not-found');
});

test('413 past the body limit, 415 for another media type, 404 and 405 for routes that do not exist', async () => {
  const big = await call(host.url, 'POST', '/v1/organizations', {
    key: editor,
    body: { name: 'x'.repeat(4096) },
  });
  problem(big, 413, 'too-large');
  const form = await call(host.url, 'POST', '/v1/organizations', {
    key: editor,
    body: 'name=x',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  problem(form, 415, 'unsupported-media-type');
  problem(await call(host.url, 'GET', '/v1/nothing-here', { key: editor }), 404, 'not-found');
  const wrong = await call(host.url, 'PUT', '/v1/organizations', { key: editor, body: {} });
  problem(wrong, 405, 'method-not-allowed');
  expect(wrong.headers.get('allow')).toBe('GET, POST');
});

test('429 with Retry-After past the per-key limit, counted across replicas', async () => {
  const env = managementEnv({ MANAGEMENT_RATE_LIMIT_PER_MINUTE: '3' });
  const [a, b] = [await startManagement(env), await startManagement(env)];
  try {
    const key = (await operatorKey(a, 'reader')).secret;
    const statuses: number[] = [];
    for (const h of [a, b, a, b])
      statuses.push((await call(h.url, 'GET', '/v1/organizations?limit=1', { key })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const limited = await call(a.url, 'GET', '/v1/organizations?limit=1', { key });
    problem(limited, 429, 'rate-limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another key has its own allowance.
    const other = (await operatorKey(a, 'reader')).secret;
    expect((await call(b.url, 'GET', '/v1/organizations?limit=1', { key: other })).status).toBe(200);
  } finally {
    await a.close();
    await b.close();
  }
});
