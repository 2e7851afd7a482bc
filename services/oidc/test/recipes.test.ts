// docs/oidc.md's recipes, run with the libraries themselves against the real host: oauth4webapi with its strict
// checks, passport with openid-client's Strategy behind express-session, and Auth.js (@auth/express) with
// `idToken: false`. Each signs a newcomer up in Chromium (email code, passkey, terms, consent) and must end with the
// person's email read from /userinfo, as the docs promise.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ExpressAuth, getSession } from '@auth/express';
import {
  type Mailbox,
  PAGE_STEP_CEILING_MS,
  signUpByEmailCode,
  startMailbox,
  uniqueName,
} from '@svc/testkit';
import express from 'express';
import session from 'express-session';
import * as oauth from 'oauth4webapi';
import * as client from 'openid-client';
import { Strategy } from 'openid-client/passport';
import passport from 'passport';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Keychain, launchChromium } from './chromium-kit';
import { ensureTerms, type OidcPagesHost, provisionRelyingParty, startOidcPages } from './pages-kit';

jest.setTimeout(180_000);

let mailbox: Mailbox;
let oidc: OidcPagesHost;
let browser: Browser;
let context: BrowserContext;
const servers: http.Server[] = [];

beforeAll(async () => {
  mailbox = await startMailbox();
  oidc = await startOidcPages({ smtpPort: mailbox.port });
  await ensureTerms(oidc);
  browser = await launchChromium();
});

beforeEach(async () => {
  // A fresh browser per recipe: each signs its own newcomer up, so no sign-in session carries over.
  context = await browser.newContext({ locale: 'en-US' });
  context.setDefaultTimeout(PAGE_STEP_CEILING_MS);
});

afterEach(async () => {
  await context?.close();
});

afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(() => r(undefined)));
  }
  await browser?.close();
  await oidc?.close();
  await mailbox?.close();
});

/** A web application on a free port of 127.0.0.1; its origin is known before the client is registered. */
async function listenApp(): Promise<{
  server: http.Server;
  origin: string;
  mount(app: express.Express): void;
}> {
  let handler: express.Express | undefined;
  const server = http.createServer((req, res) => {
    if (handler) handler(req, res);
    else res.writeHead(503).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  servers.push(server);
  return {
    server,
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    mount: (app) => {
      handler = app;
    },
  };
}

/** The client of one recipe: an application asking for the email, registered for `redirectUri`. */
function register(redirectUri: string, name: string) {
  return provisionRelyingParty(oidc, {
    redirectUris: [redirectUri],
    authMethod: 'client_secret_basic',
    responseTypes: ['code'],
    claims: { email: 'REQUIRED' },
    names: { 'en-US': name, 'zh-CN': name },
  });
}

/** On the host's pages: a newcomer signs up (email code, passkey, terms) and grants the email to `name`. */
async function signUpAndConsent(page: Page, name: string, email: string): Promise<void> {
  await page.getByRole('heading', { name: `Sign in to ${name}` }).waitFor();
  await signUpByEmailCode(page, email, mailbox.codeFor);
  await page.getByLabel('I have read and accept the basic terms').check();
  await page.getByRole('button', { name: 'Accept and continue' }).click();
  await page.getByRole('heading', { name: `What ${name} can see` }).waitFor();
  await page.locator('input[name="consent_email"][value="GRANTED"]').check();
  await page.getByRole('button', { name: 'Save and continue' }).click();
}

test('oauth4webapi with strict checks: code + PKCE, iss in the response, ID token, /userinfo', async () => {
  const rpApp = await listenApp();
  const landed = new Promise<URL>((resolve) =>
    rpApp.mount(
      express().get('/cb', (req, res) => {
        resolve(new URL(req.originalUrl, rpApp.origin));
        res.type('text').send('back at the application');
      }),
    ),
  );
  const name = uniqueName('Quay Notes');
  const rp = await register(`${rpApp.origin}/cb`, name);
  const issuer = new URL(oidc.url);
  const insecure = { [oauth.allowInsecureRequests]: true };
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
  expect(as.authorization_response_iss_parameter_supported).toBe(true);
  const oc: oauth.Client = { client_id: rp.clientId };
  const auth = oauth.ClientSecretBasic(rp.clientSecret as string);
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const nonce = oauth.generateRandomNonce();
  const url = new URL(as.authorization_endpoint as string);
  url.search = new URLSearchParams({
    client_id: rp.clientId,
    redirect_uri: rp.redirectUri,
    response_type: 'code',
    scope: 'openid email',
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
  }).toString();

  const email = `${uniqueName('o4w')}@example.test`;
  const page = await new Keychain().page(context);
  await page.goto(url.href);
  await signUpAndConsent(page, name, email);
  const callback = await landed;

  // validateAuthResponse checks state and, as the server advertises it, the `iss` parameter (RFC 9207).
  const params = oauth.validateAuthResponse(as, oc, callback, state);
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    oc,
    auth,
    params,
    rp.redirectUri,
    verifier,
    insecure,
  );
  const result = await oauth.processAuthorizationCodeResponse(as, oc, response, {
    expectedNonce: nonce,
    requireIdToken: true,
  });
  const claims = oauth.getValidatedIdTokenClaims(result);
  expect(claims?.aud).toBe(rp.clientId);
  // The trap the docs name: profile claims are not in the ID token.
  expect(claims).not.toHaveProperty('email');
  const info = await oauth.processUserInfoResponse(
    as,
    oc,
    claims?.sub as string,
    await oauth.userInfoRequest(as, oc, result.access_token, insecure),
  );
  expect(info.email).toBe(email);
  await page.close();
});

test("passport with openid-client's Strategy: login redirect, callback, the profile from /userinfo", async () => {
  const rpApp = await listenApp();
  const name = uniqueName('Tide Tables');
  const rp = await register(`${rpApp.origin}/cb`, name);
  const config = await client.discovery(
    new URL(oidc.url),
    rp.clientId,
    undefined,
    client.ClientSecretBasic(rp.clientSecret as string),
    { execute: [client.allowInsecureRequests] },
  );
  type User = { sub: string; email?: string };
  const strategy = new Strategy(
    { config, scope: 'openid email', callbackURL: rp.redirectUri },
    (
      tokens: client.TokenEndpointResponse & client.TokenEndpointResponseHelpers,
      done: passport.DoneCallback,
    ) => {
      const sub = tokens.claims()?.sub as string;
      client
        .fetchUserInfo(config, tokens.access_token, sub)
        .then((info) => done(null, { sub, email: info.email } satisfies User))
        .catch(done);
    },
  );
  const authenticator = new passport.Passport();
  authenticator.use('hub', strategy);
  authenticator.serializeUser((user, done) => done(null, user));
  authenticator.deserializeUser((user: User, done) => done(null, user));
  const app = express();
  app.use(session({ secret: uniqueName('session-secret'), resave: false, saveUninitialized: false }));
  app.use(authenticator.session());
  app.get('/login', authenticator.authenticate('hub'));
  app.get('/cb', authenticator.authenticate('hub', { failureRedirect: '/failed' }), (_req, res) => {
    res.redirect('/me');
  });
  app.get('/me', (req, res) => {
    res.json({ user: req.user ?? null });
  });
  rpApp.mount(app);

  const email = `${uniqueName('passport')}@example.test`;
  const page = await new Keychain().page(context);
  const authorizeRequest = page.waitForRequest((r) => r.url().startsWith(`${oidc.url}/authorize?`));
  await page.goto(`${rpApp.origin}/login`);
  const authorize = new URL((await authorizeRequest).url());
  // The Strategy sends PKCE (S256) since discovery advertises it; it adds `state` only for servers without PKCE.
  expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
  expect(authorize.searchParams.get('code_challenge')).toBeTruthy();
  await signUpAndConsent(page, name, email);
  await page.waitForURL(`${rpApp.origin}/me`);
  const me = JSON.parse((await page.locator('body').textContent()) as string) as { user: User | null };
  expect(me.user?.email).toBe(email);
  expect(me.user?.sub).toBeTruthy();
  await page.close();
});

test('Auth.js (@auth/express) with idToken: false: sign-in page, callback, the session carries the email', async () => {
  const rpApp = await listenApp();
  const name = uniqueName('Harbour Mail');
  const rp = await register(`${rpApp.origin}/auth/callback/hub`, name);
  const authConfig = {
    trustHost: true,
    secret: uniqueName('auth-js-secret-long-enough-for-hkdf'),
    providers: [
      {
        id: 'hub',
        name: 'Hub',
        type: 'oidc' as const,
        issuer: oidc.url,
        clientId: rp.clientId,
        clientSecret: rp.clientSecret,
        idToken: false,
        checks: ['pkce' as const, 'state' as const],
        authorization: { params: { scope: 'openid email' } },
      },
    ],
  };
  const app = express();
  app.set('trust proxy', true);
  app.use('/auth', ExpressAuth(authConfig));
  app.get('/me', async (req, res) => {
    res.json(await getSession(req, authConfig));
  });
  rpApp.mount(app);

  const email = `${uniqueName('authjs')}@example.test`;
  const page = await new Keychain().page(context);
  await page.goto(`${rpApp.origin}/auth/signin?callbackUrl=${encodeURIComponent(`${rpApp.origin}/me`)}`);
  await page.getByRole('button', { name: 'Sign in with Hub' }).click();
  await signUpAndConsent(page, name, email);
  await page.waitForURL(`${rpApp.origin}/me`);
  const me = JSON.parse((await page.locator('body').textContent()) as string) as {
    user?: { email?: string };
  } | null;
  expect(me?.user?.email).toBe(email);
  await page.close();
});
