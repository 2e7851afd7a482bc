// The example application end to end in Chromium against the real fleet: sign up on the connect inquiry page (email
// code, passkey, terms, consent), the callback and /redeem, /me in HTML and JSON, /api/whoami behind the package's
// verifier, sign out; then the same person through the OIDC host (code + PKCE) with the same passkey.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { addClientKey, createAccessKey, createOidcClient, setClaims } from '@svc/provisioning';
import {
  addAuthenticator,
  launchChromium,
  provisionApp,
  signUpByEmailCode,
  uniqueName,
  useStarted,
} from '@svc/testkit';
import { exportJWK, generateKeyPair } from 'jose';
import { startFleet } from '../../../clients/node/test/fleet';
import { createWebApp } from '../src/web-app';

const fleet = useStarted(() => startFleet());
let browser: Awaited<ReturnType<typeof launchChromium>>;
let site: { url: string; close(): void };

beforeAll(async () => {
  browser = await launchChromium(path.resolve(__dirname, '../../../test-artifacts/example'));
  const anchor = uniqueName('example');
  await provisionApp(fleet.infra, {
    anchor,
    methods: ['PASSKEY_USERNAMELESS', 'OIDC', 'ACCESS_KEY_DIRECT'],
    returnMethods: ['CALLBACK'],
    callbackDomains: ['localhost'],
    names: { 'en-US': 'Example Site', 'zh-CN': '示例网站' },
  });
  await setClaims(fleet.infra.provisioning, anchor, { email: 'OPTIONAL' });
  const server = http.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  const url = `http://localhost:${port}`;
  // What `pnpm demo` writes (CONTRACTS): the client private key with its kid, and the OIDC client.
  const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  const { kid } = await addClientKey(fleet.infra.provisioning, anchor, await exportJWK(publicKey));
  const oidcClient = await createOidcClient(fleet.infra.provisioning, {
    anchor,
    redirectUris: [`${url}/oidc/callback`],
    authMethod: 'none',
  });
  const app = createWebApp({
    port,
    host: '127.0.0.1',
    applicationAnchor: anchor,
    connectUrl: fleet.urls.connect,
    sessionUrl: fleet.urls.session,
    oidcUrl: fleet.urls.oidc,
    issuer: fleet.issuer,
    clientKey: { ...(await exportJWK(privateKey)), kid },
    oidcClient: { clientId: oidcClient.clientId, redirectUris: [`${url}/oidc/callback`] },
    problems: [],
  });
  server.on('request', app);
  site = { url, close: () => server.close() };
  (globalThis as { exampleAnchor?: string }).exampleAnchor = anchor;
});

afterAll(async () => {
  site?.close();
  await browser?.close();
});

test('sign up, passkey, consent, callback, /me, /api/whoami, sign out; then the OIDC login', async () => {
  const anchor = (globalThis as { exampleAnchor?: string }).exampleAnchor!;
  const context = await browser.newContext({ locale: 'en-US' });
  const page = await context.newPage();
  await addAuthenticator(context, page);
  const email = `${uniqueName('person')}@example.test`;

  await page.goto(`${site.url}/`);
  await page.getByRole('link', { name: 'Sign in', exact: true }).click();
  await page.waitForURL((u: URL) => u.href.startsWith(`${fleet.urls.connect}/inquiries/`));
  await signUpByEmailCode(page, email, fleet.mailbox.codeFor);
  await page.getByLabel('I have read and accept the basic terms').check();
  await page.getByRole('button', { name: 'Accept and continue' }).click();
  await page.getByRole('heading', { name: 'What Example Site can see' }).waitFor();
  await page.locator('input[name="consent_email"][value="GRANTED"]').check();
  await page.getByRole('button', { name: 'Save and continue' }).click();
  await page.waitForURL(`${site.url}/me`);
  await page.getByRole('heading', { name: 'You are signed in' }).waitFor();
  expect(await page.content()).toContain(email);

  const me = await context.request.get(`${site.url}/me`, { headers: { accept: 'application/json' } });
  expect(me.status()).toBe(200);
  const person = (await me.json()) as { sub: string; email: string };
  expect(person.email).toBe(email);

  // /api/whoami: a bearer token of the same person (issued directly for the account) names the same subject.
  const account = await fleet.infra.db.account.findUniqueOrThrow({ where: { email } });
  const key = await createAccessKey(fleet.infra.provisioning, { anchor, accountId: account.id });
  const issued = await fetch(`${fleet.urls.native}/direct-issue/access-key`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ applicationAnchor: anchor, ...key }),
  }).then((r) => r.json() as Promise<{ accessToken: string }>);
  const whoami = await fetch(`${site.url}/api/whoami`, {
    headers: { authorization: `Bearer ${issued.accessToken}` },
  });
  expect(await whoami.json()).toEqual({ sub: person.sub });
  const missing = await fetch(`${site.url}/api/whoami`);
  expect([missing.status, await missing.json()]).toEqual([401, { reason: 'TokenMissing' }]);
  const forged = await fetch(`${site.url}/api/whoami`, {
    headers: { authorization: `Bearer ${issued.accessToken.slice(0, -4)}AAAA` },
  });
  expect([forged.status, await forged.json()]).toEqual([401, { reason: 'TokenSignatureInvalid' }]);

  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL(`${site.url}/`);
  const after = await context.request.get(`${site.url}/me`, { headers: { accept: 'application/json' } });
  expect(after.status()).toBe(401);

  // The same person through the OIDC host, with the passkey made on connect.
  await page.getByRole('link', { name: 'Sign in with OpenID Connect' }).click();
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  const consent = page.getByRole('heading', { name: 'What Example Site can see' });
  await Promise.race([
    page.waitForURL(`${site.url}/me`),
    consent.waitFor().then(async () => {
      await page.locator('input[name="consent_email"][value="GRANTED"]').check();
      await page.getByRole('button', { name: 'Save and continue' }).click();
      await page.waitForURL(`${site.url}/me`);
    }),
  ]);
  await page.getByRole('heading', { name: 'You are signed in' }).waitFor();
  expect(await page.content()).toContain('OpenID Connect');
  const viaOidc = await context.request.get(`${site.url}/me`, { headers: { accept: 'application/json' } });
  expect(((await viaOidc.json()) as { sub: string }).sub).toBe(person.sub);
  await context.close();
});
