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
  provisionAccount,
  provisionApp,
  signUpByEmailCode,
  uniqueName,
  useStarted,
} from '@svc/testkit';
import { decodeJwt, exportJWK, generateKeyPair } from 'jose';
import { startFleet } from '../../../clients/node/test/fleet';
import { createWebApp, type Signed } from '../src/web-app';

const fleet = useStarted(() => startFleet());
let browser: Awaited<ReturnType<typeof launchChromium>>;
let site: { url: string; close(): void };
// The https-configured site (PUBLIC_URL https://...), served here over http so a test can send raw cookies.
let secureSite: { url: string; close(): void };
const sessions = new Map<string, Signed>();
const secureSessions = new Map<string, Signed>();

/** A session of another person (the attacker), as the attacker would mint by signing in on the site themselves. */
async function attackerSession(into: Map<string, Signed>): Promise<{ id: string; sub: string }> {
  const anchor = (globalThis as { exampleAnchor?: string }).exampleAnchor!;
  const account = await provisionAccount(fleet.infra);
  const key = await createAccessKey(fleet.infra.provisioning, { anchor, accountId: account.id });
  const issued = await fetch(`${fleet.urls.native}/direct-issue/access-key`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ applicationAnchor: anchor, ...key }),
  }).then((r) => r.json() as Promise<{ accessToken: string }>);
  if (!issued.accessToken) throw new Error(`direct issue failed: ${JSON.stringify(issued)}`);
  const id = uniqueName('attacker-session');
  const { sid, sub } = decodeJwt(issued.accessToken) as { sid: string; sub: string };
  into.set(id, { via: 'connect', sid, sub, accessToken: issued.accessToken });
  const me = await fetch(`${site.url}/api/whoami`, {
    headers: { authorization: `Bearer ${issued.accessToken}` },
  });
  return { id, sub: ((await me.json()) as { sub: string }).sub };
}

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
  const settings = {
    port,
    host: '127.0.0.1',
    publicUrl: url,
    applicationAnchor: anchor,
    connectUrl: fleet.urls.connect,
    sessionUrl: fleet.urls.session,
    oidcUrl: fleet.urls.oidc,
    issuer: fleet.issuer,
    clientKey: { ...(await exportJWK(privateKey)), kid },
    oidcClient: { clientId: oidcClient.clientId, redirectUris: [`${url}/oidc/callback`] },
    problems: [],
  };
  server.on('request', createWebApp(settings, { sessions }));
  site = { url, close: () => server.close() };
  const secureServer = http.createServer();
  await new Promise<void>((r) => secureServer.listen(0, '127.0.0.1', () => r()));
  const securePort = (secureServer.address() as AddressInfo).port;
  secureServer.on(
    'request',
    createWebApp(
      { ...settings, port: securePort, publicUrl: `https://localhost:${securePort}` },
      { sessions: secureSessions },
    ),
  );
  secureSite = { url: `http://localhost:${securePort}`, close: () => secureServer.close() };
  (globalThis as { exampleAnchor?: string }).exampleAnchor = anchor;
});

afterAll(async () => {
  site?.close();
  secureSite?.close();
  await browser?.close();
});

test('sign up, passkey, consent, callback, /me, /api/whoami, sign out; then the OIDC login', async () => {
  const anchor = (globalThis as { exampleAnchor?: string }).exampleAnchor!;
  const context = await browser.newContext({ locale: 'en-US' });
  const page = await context.newPage();
  await addAuthenticator(context, page);
  const email = `${uniqueName('person')}@example.test`;

  // A sibling origin on the same host (another port) plants the attacker's session cookie in the victim's browser.
  const attacker = await attackerSession(sessions);
  await context.addCookies([{ name: 'example_session', value: attacker.id, url: site.url }]);

  await page.goto(`${site.url}/`);
  expect(await page.locator('link[rel="icon"]').getAttribute('href')).toBe('/favicon.svg');
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
  expect(await page.locator('body').innerText()).not.toMatch(/inquiry|errand|exposure/i);
  // The victim's own sign-in ended the planted session: a fresh id, and the attacker's id is gone.
  expect(sessions.has(attacker.id)).toBe(false);

  const me = await context.request.get(`${site.url}/me`, { headers: { accept: 'application/json' } });
  expect(me.status()).toBe(200);
  const person = (await me.json()) as { sub: string; email: string };
  expect(person.email).toBe(email);
  expect(person.sub).not.toBe(attacker.sub);

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

test('on https the session cookie is __Host- and Secure: a planted plain or duplicated cookie is no session', async () => {
  const attacker = await attackerSession(secureSessions);
  const me = (cookie: string) =>
    fetch(`${secureSite.url}/me`, { headers: { accept: 'application/json', cookie } });
  // A sibling origin can set `example_session` (any port, http, Domain=) but never `__Host-example_session`.
  expect((await me(`example_session=${attacker.id}`)).status).toBe(401);
  // The same id under the host-only name is a session (so the refusal above is the name, not the id).
  const own = await me(`__Host-example_session=${attacker.id}`);
  expect([own.status, ((await own.json()) as { sub: string }).sub]).toEqual([200, attacker.sub]);
  // Two values under the one name mean one was planted (e.g. with a longer Path): neither counts.
  expect((await me(`__Host-example_session=${attacker.id}; __Host-example_session=other`)).status).toBe(401);

  const login = await fetch(`${secureSite.url}/login`, { redirect: 'manual' });
  expect(login.status).toBe(303);
  const set = login.headers.get('set-cookie') ?? '';
  expect(set).toMatch(/^__Host-example_login=[^;]+; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
});

test('on http://localhost (development) the cookies keep plain names; the pages show no spec words; favicon', async () => {
  const attacker = await attackerSession(sessions);
  const me = await fetch(`${site.url}/me`, {
    headers: { accept: 'application/json', cookie: `example_session=${attacker.id}; example_session=x` },
  });
  expect(me.status).toBe(401);
  const home = await fetch(`${site.url}/`);
  const text = await home.text();
  expect(text).toContain('<link rel="icon" href="/favicon.svg"');
  expect(text).not.toMatch(/inquiry|errand|exposure/i);
  const icon = await fetch(`${site.url}/favicon.svg`);
  expect([icon.status, icon.headers.get('content-type')]).toEqual([200, 'image/svg+xml; charset=utf-8']);
  expect(await icon.text()).toMatch(/^<svg /);
  const refused = await fetch(`${site.url}/callback?exposureKey=nope`);
  expect(await refused.text()).not.toMatch(/inquiry|errand|exposure/i);
});
