// One domain, two adapters: every CLI command has its route and reaches its command over HTTP, and the API answers
// the JSON the CLI prints for the same resource.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { COMMANDS } from '@svc/provisioning/commands';
import { uniqueName } from '@svc/testkit';
import { admin } from '../../../tools/admin/test/run-admin';
import { call, type ManagementHost, operatorKey, startManagement } from './kit';

let host: ManagementHost;
let owner: string;
beforeAll(async () => {
  host = await startManagement();
  owner = (await operatorKey(host, 'owner')).secret;
});
afterAll(async () => {
  await host?.close();
});

test('every command of the CLI table has a route in the served table, the OpenAPI document and docs/management.md', async () => {
  const doc = await call(host.url, 'GET', '/openapi.json');
  expect(doc.body.openapi).toBe('3.1.0');
  const documented = readFileSync(path.resolve(__dirname, '../../../docs/management.md'), 'utf8');
  const missing: string[] = [];
  for (const c of COMMANDS) {
    const templated = c.http.path.replace(/:([\w-]+)/g, '{$1}');
    if (!doc.body.paths[templated]?.[c.http.method.toLowerCase()])
      missing.push(`${c.name}: not in /openapi.json`);
    if (!documented.includes(`${c.http.method} ${templated}`))
      missing.push(`${c.name}: not in docs/management.md`);
    if (!documented.includes(`pnpm admin ${c.name}`))
      missing.push(`${c.name}: docs/management.md names no CLI command`);
  }
  expect(missing).toEqual([]);
  const keys = COMMANDS.map((c) => `${c.http.method} ${c.http.path}`);
  expect(keys.filter((k, i) => keys.indexOf(k) !== i)).toEqual([]);
});

test('every command is reachable over HTTP: its route runs its command (no 401, 403, 404-no-route or 405)', async () => {
  const unreachable: string[] = [];
  for (const c of COMMANDS) {
    // Path segments filled with values no resource has: the command's own rules answer (a 4xx of theirs, or 2xx).
    const filled = c.http.path.replace(/:([\w-]+)/g, (_m, name: string) =>
      name === 'email' ? 'nobody@example.invalid' : name === 'domain' ? 'example.invalid' : 'zz-none',
    );
    const res = await call(host.url, c.http.method, c.http.page ? `${filled}?limit=1` : filled, {
      key: owner,
      body: c.http.method === 'PATCH' ? {} : undefined,
    });
    const noRoute = res.status === 404 && String(res.body?.detail).startsWith('no route');
    if ([401, 403, 405].includes(res.status) || noRoute || res.status >= 500)
      unreachable.push(`${c.name} -> ${res.status} ${res.text.slice(0, 120)}`);
    if (res.status >= 400) expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  }
  expect(unreachable).toEqual([]);
}, 60_000);

test('the API answers the JSON the CLI prints for the same resource', async () => {
  const org = await call(host.url, 'POST', '/v1/organizations', {
    key: owner,
    body: { name: uniqueName('org') },
  });
  expect(org.status).toBe(201);
  const sector = await call(host.url, 'POST', '/v1/sectors', {
    key: owner,
    body: { org: org.body.id, name: uniqueName('sector') },
  });
  expect(sector.headers.get('location')).toBe(`/v1/sectors/${sector.body.id}`);
  const anchor = uniqueName('app')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-');
  const app = await call(host.url, 'POST', '/v1/applications', {
    key: owner,
    body: {
      sector: sector.body.id,
      anchor,
      name: ['en-US=Example', 'zh-CN=示例'],
      callbackDomain: 'app.example',
    },
  });
  expect([app.status, app.body, app.headers.get('location')]).toEqual([
    201,
    { applicationAnchor: anchor },
    `/v1/applications/${anchor}`,
  ]);
  const rule = await call(host.url, 'POST', `/v1/applications/${anchor}/rules`, {
    key: owner,
    body: { method: 'PLATFORM_TICKET', platformAppId: ['9007199254740993'], accessTtl: 600 },
  });
  expect(rule.status).toBe(201);

  for (const [args, route] of [
    [['app', 'show', '--app', anchor], `/v1/applications/${anchor}`],
    [['org', 'show', '--org', org.body.id], `/v1/organizations/${org.body.id}`],
    [['sector', 'list', '--org', org.body.id], `/v1/sectors?org=${org.body.id}`],
    [['app', 'list', '--sector', sector.body.id], `/v1/applications?sector=${sector.body.id}`],
    [['keys', 'list', '--app', anchor], `/v1/signing-keys?app=${anchor}`],
  ] as const) {
    const cli = await admin([...args]);
    expect(cli.code).toBe(0);
    const api = await call(host.url, 'GET', route, { key: owner });
    expect([route, api.status]).toEqual([route, 200]);
    expect(api.body).toEqual(cli.json);
  }
  // An int64 above 2^53 survives exactly, as the CLI prints it.
  const shown = await call(host.url, 'GET', `/v1/applications/${anchor}`, { key: owner });
  expect(shown.text).toContain('"9007199254740993"');
});
