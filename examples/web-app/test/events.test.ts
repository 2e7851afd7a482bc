// The example application hearing from the service, from outside: the session, connect and OIDC hosts over a
// private database with the real worker delivering from its outbox (a child process, so no other suite's worker
// drains these rows), the example subscribed to its own /security-events and its OIDC client registered with its
// /oidc/backchannel-logout. A person signs up in Chromium; a revoke-all at the session host lists a session-revoked
// event on /events and /me is signed out; the same person signed in through OIDC is signed out by the back-channel
// logout token alone; a forged SET and a forged logout token are refused (400) and list nothing.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import {
  addClientKey,
  clearEventSubscription,
  createOidcClient,
  setClaims,
  setEventSubscription,
} from '@svc/provisioning';
import {
  addAuthenticator,
  launchChromium,
  openPrivateDb,
  type PrivateDb,
  postJson,
  provisionApp,
  provisionClientKey,
  signClientAuth,
  signUpByEmailCode,
  uniqueName,
  waitUntil,
} from '@svc/testkit';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { type Fleet, startFleet } from '../../../clients/node/test/fleet';
import { startWorkerChild } from '../../../services/worker/test/events-support';
import type { Child } from '../../../services/worker/test/processes';
import { createWebApp } from '../src/web-app';

const ARTIFACTS = path.resolve(__dirname, '../../../test-artifacts/example-events');

const LOCAL_TARGETS = { production: false, allowPrivate: false };
let pdb: PrivateDb;
let fleet: Fleet;
let worker: Child;
let browser: Awaited<ReturnType<typeof launchChromium>>;
let server: http.Server;
let site: string;
let anchor: string;

beforeAll(async () => {
  pdb = await openPrivateDb({ prefix: 'example_events', terms: true });
  fleet = await startFleet({
    hosts: ['session', 'connect', 'oidc'],
    env: { DATABASE_URL: pdb.url, OIDC_REDIS_PREFIX: uniqueName('example-events') },
    infra: { over: pdb.db },
  });
  worker = await startWorkerChild(pdb.url, { OIDC_URL: fleet.urls.oidc, ISSUER_URL: fleet.issuer });
  browser = await launchChromium(ARTIFACTS);
  server = http.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  site = `http://localhost:${port}`;
  anchor = uniqueName('example-events');
  const infra = fleet.infra;
  await provisionApp(infra, {
    anchor,
    methods: ['PASSKEY_USERNAMELESS', 'OIDC'],
    returnMethods: ['CALLBACK'],
    callbackDomains: ['localhost'],
    names: { 'en-US': 'Example Site' },
  });
  await setClaims(infra.provisioning, anchor, { email: 'OPTIONAL' });
  // What `pnpm demo` registers: the subscription and the OIDC client's back-channel logout URI, both on loopback.
  await setEventSubscription(
    infra.provisioning,
    LOCAL_TARGETS,
    anchor,
    { url: `${site}/security-events`, events: [] },
    infra.issuance.clock,
  );
  const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  const { kid } = await addClientKey(infra.provisioning, anchor, await exportJWK(publicKey));
  const oidcClient = await createOidcClient(
    infra.provisioning,
    {
      anchor,
      redirectUris: [`${site}/oidc/callback`],
      authMethod: 'none',
      backchannelLogoutUri: `${site}/oidc/backchannel-logout`,
    },
    LOCAL_TARGETS,
  );
  const app = createWebApp({
    port,
    host: '127.0.0.1',
    publicUrl: site,
    applicationAnchor: anchor,
    connectUrl: fleet.urls.connect,
    sessionUrl: fleet.urls.session,
    oidcUrl: fleet.urls.oidc,
    issuer: fleet.issuer,
    clientKey: { ...(await exportJWK(privateKey)), kid },
    oidcClient: { clientId: oidcClient.clientId, redirectUris: [`${site}/oidc/callback`] },
    problems: [],
  });
  server.on('request', app);
}, 180_000);

afterAll(async () => {
  server?.closeAllConnections();
  server?.close();
  await browser?.close();
  await worker?.kill('SIGKILL');
  await fleet?.close();
  await pdb?.drop();
});

/** The rows of /events as text, one string per event (its cells joined by " | "). */
async function eventRows(): Promise<string[]> {
  const html = await (await fetch(`${site}/events`)).text();
  return [...html.matchAll(/<tr>(<td>.*?<\/td>)<\/tr>/g)].map((m) =>
    [...m[1]!.matchAll(/<td>(.*?)<\/td>/g)].map((c) => c[1]).join(' | '),
  );
}

/** A revoke-all of `subject` at the session host, as the application's backend calls it (ClientAuth). */
async function revokeAll(subject: string) {
  const ck = await provisionClientKey(fleet.infra, anchor);
  const body = JSON.stringify({ subject });
  const auth = await signClientAuth({ ...ck, iss: anchor, aud: 'service-session', body });
  const res = await postJson(`${fleet.urls.session}/revoke-all`, body, {
    authorization: `ClientAuth ${auth}`,
  });
  expect(res.status).toBe(200);
}

test('a revoke-all signs the person out of the example; the back-channel logout signs out an OIDC sign-in; forgeries list nothing', async () => {
  const context = await browser.newContext({ locale: 'en-US' });
  const page = await context.newPage();
  await addAuthenticator(context, page);
  const me = () => context.request.get(`${site}/me`, { headers: { accept: 'application/json' } });

  await page.goto(`${site}/`);
  await page.getByRole('link', { name: 'Sign in', exact: true }).click();
  await signUpByEmailCode(page, `${uniqueName('person')}@example.test`, fleet.mailbox.codeFor);
  await page.getByLabel('I have read and accept the basic terms').check();
  await page.getByRole('button', { name: 'Accept and continue' }).click();
  await page.locator('input[name="consent_email"][value="GRANTED"]').check();
  await page.getByRole('button', { name: 'Save and continue' }).click();
  await page.waitForURL(`${site}/me`);
  await page.getByRole('link', { name: 'Events received' }).waitFor();
  const { sub } = (await (await me()).json()) as { sub: string };
  expect(await eventRows()).toEqual([]);

  // Logout everywhere at the session host: the worker pushes a session-revoked SET, the example signs out.
  await revokeAll(sub);
  await waitUntil(async () => (await eventRows()).some((r) => r.includes('session-revoked')), 20_000);
  const [revoked] = await eventRows();
  expect(revoked).toMatch(
    new RegExp(`^\\S+ \\| session-revoked \\| ${sub} \\| [\\w-]+ \\| revoke_all \\| 1$`),
  );
  expect((await me()).status()).toBe(401);
  await page.goto(`${site}/events`);
  await page.getByRole('heading', { name: 'Events received' }).waitFor();

  // A forged SET (a key that is not the application's) is refused before the example looks at it.
  const forger = await generateKeyPair('RS256');
  const forged = await new SignJWT({
    iss: fleet.issuer,
    aud: anchor,
    jti: crypto.randomUUID(),
    events: {
      'https://schemas.openid.net/secevent/risc/event-type/account-disabled': {
        subject: { format: 'opaque', id: sub },
      },
    },
  })
    .setProtectedHeader({ alg: 'RS256', kid: 'forged', typ: 'secevent+jwt' })
    .setIssuedAt()
    .sign(forger.privateKey);
  const refused = await fetch(`${site}/security-events`, {
    method: 'POST',
    headers: { 'content-type': 'application/secevent+jwt' },
    body: forged,
  });
  expect([refused.status, ((await refused.json()) as { err: string }).err]).toEqual([400, 'invalid_key']);

  // The same person through OIDC; with the subscription cleared, only the back-channel logout can sign them out.
  await clearEventSubscription(fleet.infra.provisioning, anchor);
  await page.goto(`${site}/oidc/login`);
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  const consent = page.getByRole('heading', { name: 'What Example Site can see' });
  await Promise.race([
    page.waitForURL(`${site}/me`),
    consent.waitFor().then(async () => {
      await page.locator('input[name="consent_email"][value="GRANTED"]').check();
      await page.getByRole('button', { name: 'Save and continue' }).click();
      await page.waitForURL(`${site}/me`);
    }),
  ]);
  await page.getByText('Signed in through OpenID Connect.').waitFor();
  expect((await me()).status()).toBe(200);

  const forgedLogout = await new SignJWT({
    iss: fleet.urls.oidc,
    aud: 'someone',
    jti: crypto.randomUUID(),
    sub,
    events: { 'http://schemas.openid.net/event/backchannel-logout': {} },
  })
    .setProtectedHeader({ alg: 'RS256', kid: 'forged', typ: 'logout+jwt' })
    .setIssuedAt()
    .setExpirationTime('2m')
    .sign(forger.privateKey);
  const logoutRefused = await fetch(`${site}/oidc/backchannel-logout`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ logout_token: forgedLogout }),
  });
  expect(logoutRefused.status).toBe(400);
  expect((await me()).status()).toBe(200);
  expect(await eventRows()).toHaveLength(1);

  await revokeAll(sub);
  await waitUntil(async () => (await eventRows()).some((r) => r.includes('backchannel-logout')), 20_000);
  const [logout] = await eventRows();
  expect(logout).toMatch(/^\S+ \| backchannel-logout \| \S+ \| [\w-]+ \| {2}\| 1$/);
  expect((await me()).status()).toBe(401);
  expect(await eventRows()).toHaveLength(2);
  // What a person sees after both sign-outs: the /events page with its two rows.
  await page.goto(`${site}/events`);
  await page.getByRole('heading', { name: 'Events received' }).waitFor();
  await page.screenshot({ path: path.join(ARTIFACTS, 'events.png'), fullPage: true });
  await context.close();
});
