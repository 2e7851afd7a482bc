// Operator keys and roles: no key, an unknown, revoked or expired key is 401; a role without the right is 403
// (reader: every GET; editor: every change but operator keys and secret resealing; owner: everything); a key
// revoked on one replica stops working on another within about a second.

import { cliActor } from '@svc/audit';
import { systemClock } from '@svc/platform';
import { actingAs, revokeOperatorKey } from '@svc/provisioning';
import { uniqueName } from '@svc/testkit';
import { call, type ManagementHost, operatorKey, startManagement } from './kit';

let host: ManagementHost;
beforeAll(async () => {
  host = await startManagement();
});
afterAll(async () => {
  await host?.close();
});

test('no key, a malformed, unknown, revoked or expired key: 401 problem details with a Bearer challenge', async () => {
  const none = await call(host.url, 'GET', '/v1/organizations');
  expect(none.status).toBe(401);
  expect(none.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
  expect(none.body).toMatchObject({ status: 401, title: expect.any(String), detail: expect.any(String) });
  expect(none.body.type).toMatch(/unauthenticated$/);

  const reader = await operatorKey(host, 'reader');
  const unknown = `${reader.secret.slice(0, -4)}AAAA`;
  for (const secret of ['mk_short', unknown, 'Basic abc']) {
    expect((await call(host.url, 'GET', '/v1/organizations', { key: secret })).status).toBe(401);
  }
  const revoked = await operatorKey(host, 'reader');
  await revokeOperatorKey(actingAs(host.deps.provisioning, cliActor()), revoked.id, systemClock);
  expect((await call(host.url, 'GET', '/v1/organizations', { key: revoked.secret })).status).toBe(401);
});

test('an expired key is 401', async () => {
  const key = await operatorKey(host, 'owner', 1);
  await host.deps.db.operatorKey.update({
    where: { id: key.id },
    data: { expiresAt: new Date(Date.now() - 1000) },
  });
  expect((await call(host.url, 'GET', '/v1/organizations', { key: key.secret })).status).toBe(401);
});

test('reader reads, and is 403 on every change; nothing changed', async () => {
  const reader = await operatorKey(host, 'reader');
  expect((await call(host.url, 'GET', '/v1/organizations?limit=1', { key: reader.secret })).status).toBe(200);
  const name = uniqueName('org');
  const refused = await call(host.url, 'POST', '/v1/organizations', { key: reader.secret, body: { name } });
  expect(refused.status).toBe(403);
  expect(refused.body.type).toMatch(/forbidden$/);
  expect(await host.deps.db.organization.count({ where: { name } })).toBe(0);
  for (const [method, path] of [
    ['PATCH', '/v1/organizations/00000000-0000-4000-8000-000000000000'],
    ['DELETE', '/v1/oidc-clients/oidc_x'],
    ['POST', '/v1/operator-keys'],
    ['GET', '/v1/operator-keys'],
    ['POST', '/v1/secrets/reseal'],
  ] as const) {
    expect(
      (
        await call(host.url, method, path, {
          key: reader.secret,
          body: method === 'POST' || method === 'PATCH' ? {} : undefined,
        })
      ).status,
    ).toBe(403);
  }
});

test('editor changes, and is 403 on operator keys and secret resealing; owner does both', async () => {
  const editor = await operatorKey(host, 'editor');
  const created = await call(host.url, 'POST', '/v1/organizations', {
    key: editor.secret,
    body: { name: uniqueName('org') },
  });
  expect(created.status).toBe(201);
  for (const [method, path] of [
    ['POST', '/v1/operator-keys'],
    ['GET', '/v1/operator-keys'],
    ['POST', '/v1/secrets/reseal'],
  ] as const) {
    expect(
      (await call(host.url, method, path, { key: editor.secret, body: method === 'POST' ? {} : undefined }))
        .status,
    ).toBe(403);
  }
  const owner = await operatorKey(host, 'owner');
  const made = await call(host.url, 'POST', '/v1/operator-keys', {
    key: owner.secret,
    body: { name: uniqueName('ci'), role: 'reader', expiresInDays: 7 },
  });
  expect(made.status).toBe(201);
  expect(made.body.secret).toMatch(/^mk_/);
  expect(made.headers.get('location')).toBe(`/v1/operator-keys/${made.body.operatorKey.id}`);
  const row = await host.deps.db.operatorKey.findUniqueOrThrow({ where: { id: made.body.operatorKey.id } });
  expect(JSON.stringify(row)).not.toContain(made.body.secret.slice(3));
  const listed = await call(host.url, 'GET', '/v1/operator-keys?limit=200', { key: owner.secret });
  expect(listed.status).toBe(200);
  expect(listed.text).not.toContain('mk_');
  expect((await call(host.url, 'POST', '/v1/secrets/reseal', { key: owner.secret })).status).toBe(200);
});

test('a key revoked over HTTP on one replica stops working on another within seconds', async () => {
  const other = await startManagement();
  try {
    const owner = await operatorKey(host, 'owner');
    const victim = await operatorKey(host, 'reader');
    expect((await call(other.url, 'GET', '/v1/organizations?limit=1', { key: victim.secret })).status).toBe(
      200,
    );
    expect((await call(host.url, 'GET', '/v1/organizations?limit=1', { key: victim.secret })).status).toBe(
      200,
    );
    const revoked = await call(host.url, 'POST', `/v1/operator-keys/${victim.id}/revoke`, {
      key: owner.secret,
    });
    expect(revoked.status).toBe(200);
    const start = Date.now();
    let status = 200;
    while (status === 200 && Date.now() - start < 5000)
      status = (await call(other.url, 'GET', '/v1/organizations?limit=1', { key: victim.secret })).status;
    expect(status).toBe(401);
    expect(Date.now() - start).toBeLessThan(3000);
    const again = await call(host.url, 'POST', `/v1/operator-keys/${victim.id}/revoke`, {
      key: owner.secret,
    });
    expect(again.status).toBe(409);
  } finally {
    await other.close();
  }
});
