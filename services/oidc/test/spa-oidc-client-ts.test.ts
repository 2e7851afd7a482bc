// A single-page application on another origin, in Chromium, with no proxy: oidc-client-ts's browser bundle on a
// page of its own origin (a free port of 127.0.0.1; the host is `localhost`) signs a newcomer in (signinRedirect,
// sign-up on the host's pages, signinCallback: code + PKCE, /token and /userinfo read across origins), renews
// with the refresh token offline_access gave (prompt=consent), and signs out (signoutRedirect to /end-session and
// back to the registered post-logout URI), after which that refresh token no longer works.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import {
  type Mailbox,
  PAGE_STEP_CEILING_MS,
  signUpByEmailCode,
  startMailbox,
  uniqueName,
} from '@svc/testkit';
import { decodeJwt } from 'jose';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Keychain, launchChromium } from './chromium-kit';
import { ensureTerms, type OidcPagesHost, provisionRelyingParty, startOidcPages } from './pages-kit';

jest.setTimeout(180_000);

// The package exports only its Node builds; the browser bundle sits beside them.
const BUNDLE = readFileSync(
  path.join(path.dirname(require.resolve('oidc-client-ts')), '../browser/oidc-client-ts.min.js'),
  'utf8',
);

let mailbox: Mailbox;
let oidc: OidcPagesHost;
let browser: Browser;
let context: BrowserContext;
let spa: http.Server;
let spaOrigin: string;
let settings: Record<string, unknown> = {};

/** The application: the bundle, and on every other path a page that makes `window.mgr` from `settings`. */
async function startSpa(): Promise<void> {
  spa = http.createServer((req, res) => {
    if (req.url === '/oidc-client-ts.min.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      res.end(BUNDLE);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      `<!doctype html><title>Lighthouse app</title><script src="/oidc-client-ts.min.js"></script>` +
        `<script>window.mgr = new oidc.UserManager(${JSON.stringify(settings)});</script>`,
    );
  });
  await new Promise<void>((r) => spa.listen(0, '127.0.0.1', () => r()));
  spaOrigin = `http://127.0.0.1:${(spa.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  mailbox = await startMailbox();
  oidc = await startOidcPages({ smtpPort: mailbox.port });
  await startSpa();
  await ensureTerms(oidc);
  browser = await launchChromium();
  context = await browser.newContext({ locale: 'en-US' });
  context.setDefaultTimeout(PAGE_STEP_CEILING_MS);
});

afterAll(async () => {
  spa?.closeAllConnections();
  await new Promise((r) => (spa ? spa.close(() => r(undefined)) : r(undefined)));
  await context?.close();
  await browser?.close();
  await oidc?.close();
  await mailbox?.close();
});

interface SpaUser {
  sub: string;
  email?: string;
  accessToken: string;
  refreshToken?: string;
  idToken?: string;
  scope?: string;
}

declare const mgr: {
  signinRedirect(args?: unknown): Promise<void>;
  signinCallback(): Promise<unknown>;
  signinSilent(): Promise<unknown>;
  signoutRedirect(args?: unknown): Promise<void>;
  signoutCallback(): Promise<unknown>;
  getUser(): Promise<unknown>;
};

/** The user oidc-client-ts holds, in the fields the test checks. */
function userIn(page: Page, call: 'signinCallback' | 'signinSilent' | 'getUser'): Promise<SpaUser | null> {
  return page.evaluate(async (call) => {
    const u = (await mgr[call]()) as {
      profile: { sub: string; email?: string };
      access_token: string;
      refresh_token?: string;
      id_token?: string;
      scope?: string;
    } | null;
    return u
      ? {
          sub: u.profile.sub,
          email: u.profile.email,
          accessToken: u.access_token,
          refreshToken: u.refresh_token,
          idToken: u.id_token,
          scope: u.scope,
        }
      : null;
  }, call);
}

const atSpa = (page: Page, pathname: string) =>
  page.waitForURL((u) => u.origin === spaOrigin && u.pathname === pathname);

test('sign-in, renewal by refresh token and sign-out, all from a page on another origin', async () => {
  const rp = await provisionRelyingParty(oidc, {
    redirectUris: [`${spaOrigin}/cb`],
    postLogoutRedirectUris: [`${spaOrigin}/signed-out`],
    webOrigins: [spaOrigin],
    authMethod: 'none',
    responseTypes: ['code'],
    claims: { email: 'REQUIRED' },
    names: { 'en-US': 'Lighthouse Maps', 'zh-CN': '灯塔地图' },
  });
  settings = {
    authority: oidc.url,
    client_id: rp.clientId,
    redirect_uri: `${spaOrigin}/cb`,
    post_logout_redirect_uri: `${spaOrigin}/signed-out`,
    response_type: 'code',
    scope: 'openid email offline_access',
    loadUserInfo: true,
    automaticSilentRenew: false,
  };
  const newcomer = `${uniqueName('spa')}@example.test`;
  const page = await new Keychain().page(context);
  const visited: URL[] = [];
  page.on('request', (r) => {
    if (r.isNavigationRequest()) visited.push(new URL(r.url()));
  });
  await page.goto(`${spaOrigin}/`);

  // signinRedirect navigates away: started, not awaited, in the page.
  await page.evaluate(() => {
    void mgr.signinRedirect({ prompt: 'consent' });
  });
  await page.getByRole('heading', { name: 'Sign in to Lighthouse Maps' }).waitFor();
  const authorize = new URL(page.url());
  expect(authorize.origin).toBe(oidc.url);
  await signUpByEmailCode(page, newcomer, mailbox.codeFor);
  await page.getByLabel('I have read and accept the basic terms').check();
  await page.getByRole('button', { name: 'Accept and continue' }).click();
  await page.getByRole('heading', { name: 'What Lighthouse Maps can see' }).waitFor();
  await page.locator('input[name="consent_email"][value="GRANTED"]').check();
  await page.getByRole('button', { name: 'Save and continue' }).click();
  // prompt=consent asks for the review of every claim as well, even of a newcomer who has just decided them.
  await page.waitForFunction(() => document.title === 'Review what Lighthouse Maps can see');
  await page.getByRole('button', { name: 'Save and continue' }).click();
  await atSpa(page, '/cb');
  const landed = new URL(page.url());
  expect(landed.searchParams.get('code')).toBeTruthy();

  // The code exchange (PKCE) and /userinfo, both read by the page across origins.
  const signedIn = await userIn(page, 'signinCallback');
  expect(signedIn?.email).toBe(newcomer);
  expect(signedIn?.refreshToken).toBeTruthy();
  expect(signedIn?.scope?.split(' ')).toContain('offline_access');
  expect(decodeJwt(signedIn?.idToken as string).aud).toBe(rp.clientId);

  // Renewal: oidc-client-ts uses the refresh token it holds (a POST to /token, no iframe).
  const renewed = await userIn(page, 'signinSilent');
  expect(renewed?.sub).toBe(signedIn?.sub);
  expect(renewed?.accessToken).toBeTruthy();
  expect(renewed?.accessToken).not.toBe(signedIn?.accessToken);
  const held = renewed?.refreshToken ?? (signedIn?.refreshToken as string);

  // Sign-out: /end-session with the ID token as hint, straight back to the registered post-logout URI.
  await page.evaluate(() => {
    void mgr.signoutRedirect({ state: 'left on purpose' });
  });
  await atSpa(page, '/signed-out');
  const endSession = visited.find((u) => u.origin === oidc.url && u.pathname === '/end-session');
  expect(endSession?.searchParams.get('id_token_hint')).toBe(renewed?.idToken ?? signedIn?.idToken);
  // The state comes back, and oidc-client-ts matches it to the data it stored.
  const signedOut = await page.evaluate(async () => {
    const r = (await mgr.signoutCallback()) as { userState?: unknown } | undefined;
    return r?.userState;
  });
  expect(signedOut).toBe('left on purpose');
  expect(await userIn(page, 'getUser')).toBeNull();
  await page.close();

  // The session the hint named is over: its refresh token is refused.
  const res = await fetch(`${oidc.url}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: held, client_id: rp.clientId }),
  });
  expect(res.status).toBe(400);
  expect(((await res.json()) as { error: string }).error).toBe('invalid_grant');
});
