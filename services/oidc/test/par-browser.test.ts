// Pushed authorization requests (RFC 9126) end to end in Chromium with the stock libraries: openid-client 6's
// buildAuthorizationUrlWithPAR for a client registered with --require-par (a newcomer signs up: email code, passkey,
// terms, consent), then oauth4webapi 3's pushedAuthorizationRequest for a public client of the same application
// (the browser's sign-in answers it without a page). Each exchanges its code and reads the email from /userinfo;
// the browser's URL carries client_id and request_uri only.
import { createOidcClient } from '@svc/provisioning';
import {
  type Mailbox,
  PAGE_STEP_CEILING_MS,
  signUpByEmailCode,
  startMailbox,
  uniqueName,
} from '@svc/testkit';
import * as oauth from 'oauth4webapi';
import * as client from 'openid-client';
import type { Browser, BrowserContext } from 'playwright-core';
import { Keychain, launchChromium } from './chromium-kit';
import {
  ensureTerms,
  type OidcPagesHost,
  provisionRelyingParty,
  type RelyingPartyFixture,
  startOidcPages,
} from './pages-kit';
import { type RelyingPartyServer, startRelyingParty } from './rp-kit';

jest.setTimeout(180_000);

let mailbox: Mailbox;
let oidc: OidcPagesHost;
let rpServer: RelyingPartyServer;
let browser: Browser;
let context: BrowserContext;
let rp: RelyingPartyFixture;
const keychain = new Keychain();
const name = uniqueName('Pier Ledger');
const email = `${uniqueName('par')}@example.test`;

beforeAll(async () => {
  mailbox = await startMailbox();
  oidc = await startOidcPages({ smtpPort: mailbox.port });
  await ensureTerms(oidc);
  rpServer = await startRelyingParty('localhost');
  rp = await provisionRelyingParty(oidc, {
    redirectUris: [`${rpServer.origin}/cb`],
    responseTypes: ['code'],
    claims: { email: 'REQUIRED' },
    names: { 'en-US': name, 'zh-CN': name },
    requirePar: true,
  });
  browser = await launchChromium();
  context = await browser.newContext({ locale: 'en-US' });
  context.setDefaultTimeout(PAGE_STEP_CEILING_MS);
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await rpServer?.close();
  await oidc?.close();
  await mailbox?.close();
});

/** Opens `url` in the browser, lets `during` act on the pages, and returns the callback the RP received. */
async function signIn(
  url: URL,
  during?: (page: import('playwright-core').Page) => Promise<void>,
): Promise<URL> {
  const arrived = rpServer.next('/cb');
  const page = await keychain.page(context);
  await page.goto(url.href);
  await during?.(page);
  const received = await arrived;
  await page.close();
  return new URL(received.url);
}

test('openid-client 6: PAR for a --require-par client, a newcomer signs up, code exchange, /userinfo', async () => {
  const config = await client.discovery(
    new URL(oidc.url),
    rp.clientId,
    { redirect_uris: [rp.redirectUri] },
    client.ClientSecretBasic(rp.clientSecret as string),
    { execute: [client.allowInsecureRequests] },
  );
  expect(config.serverMetadata().pushed_authorization_request_endpoint).toBe(`${oidc.url}/par`);
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const url = await client.buildAuthorizationUrlWithPAR(config, {
    redirect_uri: rp.redirectUri,
    scope: 'openid email',
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
  });
  // Nothing but the client and the reference travels in the browser's URL.
  expect([...url.searchParams.keys()].sort()).toEqual(['client_id', 'request_uri']);

  const callback = await signIn(url, async (page) => {
    await page.getByRole('heading', { name: `Sign in to ${name}` }).waitFor();
    await signUpByEmailCode(page, email, mailbox.codeFor);
    await page.getByLabel('I have read and accept the basic terms').check();
    await page.getByRole('button', { name: 'Accept and continue' }).click();
    await page.getByRole('heading', { name: `What ${name} can see` }).waitFor();
    await page.locator('input[name="consent_email"][value="GRANTED"]').check();
    await page.getByRole('button', { name: 'Save and continue' }).click();
  });
  const tokens = await client.authorizationCodeGrant(config, callback, {
    pkceCodeVerifier: verifier,
    expectedState: state,
    expectedNonce: nonce,
    idTokenExpected: true,
  });
  const sub = tokens.claims()?.sub as string;
  const info = await client.fetchUserInfo(config, tokens.access_token, sub);
  expect(info.email).toBe(email);

  // The request_uri was used: the same URL again is refused with a page, nothing sent to the client.
  const replay = await fetch(url, { redirect: 'manual' });
  expect(replay.status).toBe(400);
  expect(replay.headers.get('location')).toBeNull();
});

test('oauth4webapi 3: PAR for a public client, the held sign-in answers, code exchange, /userinfo', async () => {
  const created = await createOidcClient(oidc.infra.provisioning, {
    anchor: rp.anchor,
    redirectUris: [rp.redirectUri],
    authMethod: 'none',
  });
  const issuer = new URL(oidc.url);
  const insecure = { [oauth.allowInsecureRequests]: true };
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
  const oc: oauth.Client = { client_id: created.clientId };
  const auth = oauth.None();
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const nonce = oauth.generateRandomNonce();
  const pushed = await oauth.processPushedAuthorizationResponse(
    as,
    oc,
    await oauth.pushedAuthorizationRequest(
      as,
      oc,
      auth,
      {
        redirect_uri: rp.redirectUri,
        response_type: 'code',
        scope: 'openid email',
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state,
        nonce,
      },
      insecure,
    ),
  );
  expect(pushed.expires_in).toBe(60);
  const url = new URL(as.authorization_endpoint as string);
  url.searchParams.set('client_id', created.clientId);
  url.searchParams.set('request_uri', pushed.request_uri);

  const callback = await signIn(url);
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
  const result = await oauth.processAuthorizationCodeResponse(as, oc, response, { expectedNonce: nonce });
  const sub = oauth.getValidatedIdTokenClaims(result)?.sub as string;
  const info = await oauth.processUserInfoResponse(
    as,
    oc,
    sub,
    await oauth.userInfoRequest(as, oc, result.access_token, insecure),
  );
  expect(info.email).toBe(email);
});
