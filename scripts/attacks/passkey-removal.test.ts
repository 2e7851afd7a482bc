// Issue 25's reproduction, as it is judged: the fleet as processes (connect, OIDC and device twice each, over one
// database and Redis, behind one public localhost address per host; the session host once) and headless Chromium.
// An attacker who received an emailed code for the victim's address signs up on an OIDC interaction page (adding
// passkey P to the victim's account, keeping the OIDC sign-in), signs in with P on the device approval page
// (approving a device, whose tokens refresh at the session host), on connect's account page and on an inquiry.
// The victim removes P on connect's /account page. Then every host is answered by its OTHER replica, and every
// path the attacker holds is signed out at its first request: nothing it held still issues or answers.
import { randomBytes } from 'node:crypto';
import { createOidcClient } from '@svc/provisioning';
import {
  addAuthenticator,
  type ChildHost,
  launchChromium,
  type Mailbox,
  openInfra,
  postJson,
  provisionAccount,
  provisionApp,
  provisionBackend,
  type ReplicaFront,
  signUpByEmailCode,
  softPasskey,
  spawnHost,
  startMailbox,
  startReplicaFront,
  type TestInfra,
  testEnv,
  uniqueName,
} from '@svc/testkit';

jest.setTimeout(300_000);

// playwright-core's types, through testkit's launcher (the scripts package does not depend on playwright-core).
type Browser = Awaited<ReturnType<typeof launchChromium>>;
type BrowserContext = Awaited<ReturnType<Browser['newContext']>>;
type Page = Awaited<ReturnType<BrowserContext['newPage']>>;

const HOSTS = ['connect', 'oidc', 'device'] as const;
type Host = (typeof HOSTS)[number];

let infra: TestInfra;
let mailbox: Mailbox;
let browser: Browser;
const front = {} as Record<Host, ReplicaFront>;
const replicas = {} as Record<Host, [ChildHost, ChildHost]>;
let session: ChildHost;
const children: ChildHost[] = [];

beforeAll(async () => {
  infra = openInfra();
  mailbox = await startMailbox();
  for (const host of HOSTS) front[host] = await startReplicaFront();
  // One fleet: the replicas of a host share its public URL, its Redis prefix and its rate-limit counters.
  const run = uniqueName('pr');
  const env = testEnv({
    LOG_LEVEL: 'info',
    CONNECT_URL: front.connect.url,
    OIDC_URL: front.oidc.url,
    DEVICE_URL: front.device.url,
    WEBAUTHN_RP_ID: 'localhost',
    WEBAUTHN_RP_NAME: 'Sign-in service (test)',
    MAIL_FROM: 'Sign-in test <no-reply@localhost>',
    SMTP_URL: `smtp://127.0.0.1:${mailbox.port}`,
    RATE_LIMIT_NAMESPACE: `${run}-rl`,
    OIDC_REDIS_PREFIX: `${run}-oidc`,
    DEVICE_REDIS_PREFIX: `${run}-device`,
    APP_CACHE_TTL_MS: '0',
  }) as Record<string, string>;
  const started = await Promise.all([
    ...HOSTS.flatMap((host) => [0, 1].map(() => spawnHost(`services/${host}/src/main.ts`, env))),
    spawnHost('services/session/src/main.ts', env),
  ]);
  children.push(...started);
  HOSTS.forEach((host, i) => {
    replicas[host] = [started[2 * i] as ChildHost, started[2 * i + 1] as ChildHost];
    front[host].use(replicas[host][0].url);
  });
  session = started[6] as ChildHost;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await Promise.all(children.map((c) => c.kill()));
  for (const host of HOSTS) await front[host]?.close();
  await mailbox?.close();
  await infra?.close();
});

const REDIRECT = `https://${uniqueName('rp')}.example/cb`;

/** The relying party's side of /authorize: a URL of the request, and where the browser landed on REDIRECT. */
function authorizeUrl(clientId: string, over: Record<string, string> = {}): string {
  const q = new URLSearchParams({
    client_id: clientId,
    redirect_uri: REDIRECT,
    response_type: 'code',
    scope: 'openid email',
    nonce: randomBytes(8).toString('hex'),
    state: randomBytes(8).toString('hex'),
    ...over,
  });
  return `${front.oidc.url}/authorize?${q}`;
}

/**
 * The parameters the browser brings to the redirect URI after `action` (a navigation or a click): read off its
 * request to the relying party, however the navigation itself ends (the relying party is not on this machine).
 */
async function answered(page: Page, action: () => Promise<unknown>): Promise<Record<string, string>> {
  const request = page.waitForRequest((r) => r.url().startsWith(REDIRECT));
  await action().catch(() => undefined);
  return Object.fromEntries(new URL((await request).url()).searchParams);
}

/** A browser context (English) whose visits to the relying party's redirect URI are answered locally. */
async function browserContext(): Promise<BrowserContext> {
  const context = await browser.newContext({ locale: 'en-US' });
  context.setDefaultTimeout(30_000);
  await context.route(
    (url) => url.href.startsWith(REDIRECT),
    (route) => route.fulfill({ status: 200, contentType: 'text/plain', body: 'relying party' }),
  );
  return context;
}

function tokenEndpoint(client: { clientId: string; clientSecret?: string }, fields: Record<string, string>) {
  const basic = Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64');
  return fetch(`${front.oidc.url}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${basic}` },
    body: new URLSearchParams(fields).toString(),
  }).then(async (res) => ({ status: res.status, body: (await res.json()) as Record<string, string> }));
}

const bearer = (url: string, token: string) =>
  fetch(url, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.status);

test('removing P on connect signs the attacker out of every host at once, on the other replica of each', async () => {
  // The victim: an account with its own passkey Q; an OIDC relying party and a device application it uses.
  const victim = await provisionAccount(infra);
  const q = await softPasskey(infra, victim.id);
  const rpApp = await provisionApp(infra, {
    methods: ['OIDC', 'PASSKEY_USERNAMELESS'],
    claims: { email: 'OPTIONAL' },
  });
  const client = await createOidcClient(infra.provisioning, {
    anchor: rpApp.anchor,
    redirectUris: [REDIRECT],
  });
  const tv = await provisionApp(infra, { methods: ['PASSKEY_USERNAMELESS'], returnMethods: ['DEVICE_CODE'] });

  // 1. OIDC: the attacker proves the victim's address by the mailed code and creates P on the interaction page,
  //    consenting to email and offline access; the relying party exchanges the code.
  const attacker = await browserContext();
  const page = await attacker.newPage();
  const authenticator = await addAuthenticator(attacker, page);
  await page.goto(authorizeUrl(client.clientId, { scope: 'openid email offline_access', prompt: 'consent' }));
  await signUpByEmailCode(page, victim.email, mailbox.codeFor);
  await page.getByRole('heading', { name: /can see$/ }).waitFor();
  await page.locator('input[name="consent_email"][value="GRANTED"]').check();
  await page.getByRole('button', { name: 'Save and continue' }).click();
  // prompt=consent then asks for the review of every claim, even one just decided.
  await page.waitForFunction(() => document.title.startsWith('Review what'));
  const first = await answered(page, () => page.getByRole('button', { name: 'Save and continue' }).click());
  const [p] = await authenticator.credentials();
  expect(p).toBeDefined();
  expect(await infra.db.passkey.count({ where: { accountId: victim.id } })).toBe(2);
  const issued = await tokenEndpoint(client, {
    grant_type: 'authorization_code',
    code: first.code as string,
    redirect_uri: REDIRECT,
  });
  expect(issued.status).toBe(200);
  expect(issued.body.refresh_token).toEqual(expect.any(String));
  const userinfo = await fetch(`${front.oidc.url}/userinfo`, {
    headers: { authorization: `Bearer ${issued.body.access_token}` },
  });
  expect([userinfo.status, ((await userinfo.json()) as { email?: string }).email]).toEqual([
    200,
    victim.email,
  ]);
  const rotated = await tokenEndpoint(client, {
    grant_type: 'refresh_token',
    refresh_token: issued.body.refresh_token as string,
  });
  expect(rotated.status).toBe(200);
  // The held sign-in answers silently, for this client and with a code left unused.
  const unused = (await answered(page, () => page.goto(authorizeUrl(client.clientId, { prompt: 'none' }))))
    .code;
  expect(unused).toEqual(expect.any(String));

  // 2. Device: a TV shows a user code; the attacker signs in with P on the approval page and approves it.
  const tvCode = async () =>
    (await postJson(`${front.device.url}/device-authorize`, { applicationAnchor: tv.anchor })).body as {
      userCode: string;
      deviceCode: string;
    };
  const poll = (deviceCode: string) => postJson(`${front.device.url}/device-token`, { deviceCode });
  const onTv = await tvCode();
  await page.goto(`${front.device.url}/device?user_code=${onTv.userCode}`);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await page.getByRole('heading', { name: 'Sign in on this device?' }).waitFor();
  await page.getByRole('button', { name: 'Approve' }).click();
  await page.getByRole('heading', { name: 'Device approved' }).waitFor();
  const tvTokens = await poll(onTv.deviceCode);
  expect(tvTokens.status).toBe(200);
  const tvRefreshed = await postJson(`${session.url}/refresh`, { refreshToken: tvTokens.body.refreshToken });
  expect(tvRefreshed.status).toBe(200);

  // 3. Connect: the attacker signs in with P on the account page too, and on an application's inquiry, held on
  //    its consent step.
  await page.goto(`${front.connect.url}/account`);
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await page.getByRole('heading', { name: 'Applications you use' }).waitFor();
  const backend = await provisionBackend(infra, front.connect.url, { claims: { email: 'OPTIONAL' } });
  const inquiry = await backend.establish({
    returnMethods: [{ type: 'CALLBACK', payload: { callbackUrl: 'https://app.example.test/cb' } }],
  });
  expect(inquiry.status).toBe(200);
  const inquiryPage = `${front.connect.url}/inquiries/${inquiry.body.exposureKey}`;
  await page.goto(inquiryPage);
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await page.locator('input[name="consent_email"][value="GRANTED"]').waitFor();

  // The victim signs in with Q on connect's account page (replica A) and removes P (listed after Q, older first).
  const owner = await browserContext();
  const ownerPage = await owner.newPage();
  await addAuthenticator(owner, ownerPage, [q.credential('localhost')]);
  await ownerPage.goto(`${front.connect.url}/account`);
  await ownerPage.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await ownerPage.getByRole('heading', { name: 'Applications you use' }).waitFor();
  await ownerPage.locator('li.passkey').nth(1).getByRole('button', { name: 'Remove' }).click();
  await ownerPage.getByText('The passkey is removed: it can no longer sign in').waitFor();
  const left = await infra.db.passkey.findMany({ where: { accountId: victim.id } });
  expect(left.map((k) => k.credentialId)).toEqual([q.credentialId]);

  // From here every host is answered by its other replica; each check is the first request of its kind since.
  const sentTo = (host: Host, i: 0 | 1) => front[host].sent.get(replicas[host][i].url) ?? 0;
  const beforeA = HOSTS.map((h) => sentTo(h, 0));
  const beforeB = HOSTS.map((h) => sentTo(h, 1));
  for (const host of HOSTS) front[host].use(replicas[host][1].url);

  // OIDC: prompt=none is login_required, never a code; the earlier access token, refresh token and code are dead.
  const silent = await answered(page, () => page.goto(authorizeUrl(client.clientId, { prompt: 'none' })));
  expect(silent).toMatchObject({ error: 'login_required' });
  expect(silent.code).toBeUndefined();
  expect(await bearer(`${front.oidc.url}/userinfo`, issued.body.access_token as string)).toBe(401);
  expect(await bearer(`${front.oidc.url}/userinfo`, rotated.body.access_token as string)).toBe(401);
  const refused = await tokenEndpoint(client, {
    grant_type: 'refresh_token',
    refresh_token: rotated.body.refresh_token as string,
  });
  expect([refused.status, refused.body.error]).toEqual([400, 'invalid_grant']);
  const late = await tokenEndpoint(client, {
    grant_type: 'authorization_code',
    code: unused as string,
    redirect_uri: REDIRECT,
  });
  expect([late.status, late.body.error]).toEqual([400, 'invalid_grant']);
  // Without prompt=none the interaction page asks for a sign-in again.
  await page.goto(authorizeUrl(client.clientId));
  await page.getByRole('button', { name: 'Sign in with a passkey' }).waitFor();

  // Device: a newly entered code asks for a sign-in; nothing approves it. The TV's tokens no longer refresh or
  // answer at the session host.
  const next = await tvCode();
  await page.goto(`${front.device.url}/device?user_code=${next.userCode}`);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByRole('button', { name: 'Sign in with a passkey' }).waitFor();
  expect(await page.getByRole('heading', { name: 'Sign in on this device?' }).count()).toBe(0);
  expect(await page.getByRole('button', { name: 'Approve' }).count()).toBe(0);
  expect((await poll(next.deviceCode)).body).toEqual({ error: 'authorization_pending' });
  const tvLate = await postJson(`${session.url}/refresh`, { refreshToken: tvRefreshed.body.refreshToken });
  expect(tvLate.status).toBe(401);
  expect(await bearer(`${session.url}/userinfo`, tvRefreshed.body.accessToken)).toBe(401);

  // Connect: the account page held with P is signed out and says why; the inquiry asks for a sign-in again.
  await page.goto(`${front.connect.url}/account`);
  await page.getByText('the passkey you signed in with was removed').waitFor();
  expect(await page.getByRole('button', { name: 'Sign in with a passkey' }).count()).toBe(1);
  await page.goto(inquiryPage);
  await page.getByRole('button', { name: 'Sign in with a passkey' }).waitFor();
  expect(await page.locator('input[name="consent_email"]').count()).toBe(0);

  // Every one of those answers came from the other replicas.
  expect(HOSTS.map((h) => sentTo(h, 0))).toEqual(beforeA);
  expect(HOSTS.map((h, i) => sentTo(h, 1) > (beforeB[i] as number))).toEqual([true, true, true]);
  // The owner goes on: Q still signs in, on the other replica too.
  await ownerPage.goto(`${front.connect.url}/account`);
  await ownerPage.getByRole('heading', { name: 'Applications you use' }).waitFor();
  await owner.close();
  await attacker.close();
});
