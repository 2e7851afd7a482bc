// `pnpm demo` against a private fresh database and a temporary DEMO_DIR: the example's files and the rules its three
// flows need, the example subscribed to every event at its /security-events and its OIDC client's back-channel
// logout URI, idempotence (a second run changes nothing and prints the same), no placeholders, and the example app
// starting on the written files with /login sending the browser to the connect inquiry page and /events answering.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { openPrivateDb, type PrivateDb, testEnv } from '@svc/testkit';
import { startFleet } from '../clients/node/test/fleet';
import { exampleConfigFromEnv } from '../examples/web-app/src/config';
import { createWebApp } from '../examples/web-app/src/web-app';
import { runDemo, shellHint } from './demo-provision';

let priv: PrivateDb;
let dir: string;

beforeAll(async () => {
  priv = await openPrivateDb({ prefix: 'demo' });
  dir = mkdtempSync(path.join(os.tmpdir(), 'demo-'));
});
afterAll(async () => {
  await priv.drop();
  rmSync(dir, { recursive: true, force: true });
});

async function snapshot() {
  const app = await priv.db.application.findUniqueOrThrow({
    where: { anchor: 'demo-app' },
    include: { authRules: true, returnRules: true, clientKeys: true },
  });
  return {
    callbackDomains: app.callbackDomains,
    rules: app.authRules.map((r) => r.method).sort(),
    returnRules: app.returnRules.map((r) => r.method).sort(),
    clientKeys: app.clientKeys.map((k) => k.kid),
    oidcClients: (await priv.db.oidcClient.findMany({ where: { applicationId: app.id } })).map((c) => [
      c.clientId,
      c.backchannelLogoutUri,
    ]),
    subscription: await priv.db.eventSubscription.findUnique({
      where: { applicationId: app.id },
      select: { url: true, events: true },
    }),
    accessKeys: await priv.db.accessKey.count({ where: { applicationId: app.id } }),
    apps: await priv.db.application.count(),
    files: ['client-key.jwk.json', 'oidc-client.json', 'access-key.json'].map((f) =>
      readFileSync(path.join(dir, f), 'utf8'),
    ),
  };
}

test('pnpm demo provisions demo-app for the three flows, idempotently, and the example app signs in from it', async () => {
  const env = testEnv({ DATABASE_URL: priv.url, DEMO_DIR: dir });
  const first = await runDemo(env);
  const before = await snapshot();
  expect(before.callbackDomains).toContain('localhost:4180');
  expect(before.rules).toEqual(['ACCESS_KEY_DIRECT', 'OIDC', 'PASSKEY_USERNAMELESS']);
  expect(before.returnRules).toEqual(['CALLBACK', 'DEVICE_CODE']);

  const key = JSON.parse(before.files[0]!);
  expect(key).toMatchObject({ kty: 'OKP', crv: 'Ed25519', kid: first.clientKid });
  expect(typeof key.d).toBe('string');
  expect(before.clientKeys).toEqual([key.kid]);
  expect(statSync(path.join(dir, 'client-key.jwk.json')).mode & 0o077).toBe(0);
  const oidc = JSON.parse(before.files[1]!);
  expect(oidc).toEqual({
    clientId: first.oidcClientId,
    redirectUris: ['http://localhost:4180/oidc/callback'],
  });
  const client = await priv.db.oidcClient.findUniqueOrThrow({ where: { clientId: oidc.clientId } });
  expect(client.authMethod).toBe('none');
  expect(client.backchannelLogoutUri).toBe('http://localhost:4180/oidc/backchannel-logout');
  // Every event (an empty list), pushed to the example on loopback: allowed outside production.
  expect(before.subscription).toMatchObject({ url: 'http://localhost:4180/security-events', events: [] });

  expect(first.output).not.toMatch(/<[a-zA-Z]+>/);
  for (const line of [
    'pnpm example',
    'http://localhost:4180/',
    'http://localhost:4180/oidc/login',
    'pnpm device-login --app demo-app',
    'http://localhost:4199/',
    'http://localhost:4180/events',
  ]) {
    expect(first.output).toContain(line);
  }

  const second = await runDemo(env);
  expect(second.output).toBe(first.output);
  expect(await snapshot()).toEqual(before);
  // A demo provisioned before events (no back-channel URI, no subscription) is brought up to date, same client.
  await priv.db.oidcClient.update({
    where: { clientId: oidc.clientId },
    data: { backchannelLogoutUri: null },
  });
  await priv.db.eventSubscription.deleteMany({});
  await runDemo(env);
  expect(await snapshot()).toEqual(before);

  // The example application on exactly what the demo wrote, against a connect host on the same database.
  const fleet = await startFleet({ hosts: ['connect'], env: { DATABASE_URL: priv.url } });
  const server = http.createServer();
  try {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const port = (server.address() as AddressInfo).port;
    const config = exampleConfigFromEnv({ DEMO_DIR: dir, PORT: '4180', CONNECT_URL: fleet.urls.connect });
    expect(config.problems).toEqual([]);
    server.on('request', createWebApp(config));
    const res = await fetch(`http://127.0.0.1:${port}/login`, { redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toMatch(new RegExp(`^${fleet.urls.connect}/`));
    const events = await fetch(`http://127.0.0.1:${port}/events`);
    expect([events.status, await events.text()]).toEqual([200, expect.stringContaining('No events yet.')]);
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await fleet.close();
  }
});

test("the demo says to put the project's Node and pnpm on PATH first only when it runs on the fetched one", () => {
  const root = path.resolve(__dirname, '..');
  expect(shellHint(path.join(root, '.tools', 'node-24.21.0', 'bin', 'node'))).toContain(
    '. scripts/use-node.sh',
  );
  expect(shellHint('/usr/bin/node')).toBe('');
});
