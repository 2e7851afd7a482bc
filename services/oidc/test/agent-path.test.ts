// The agents' path of docs/oidc.md end to end with stock openid-client 6 in Chromium: an agent registers itself
// with an initial access token (RFC 7591; a public client that requires pushed requests and DPoP-bound tokens),
// pushes its authorization request with a DPoP proof (RFC 9126, RFC 9449), a person signs up and consents on the
// pages, and the agent exchanges the code, reads /userinfo and refreshes, each with a proof by its key; an
// oauth4webapi 3 client registered the same way signs the same person in.
import { createRegistrationToken, listOidcClients } from '@svc/provisioning';
import {
  type Mailbox,
  PAGE_STEP_CEILING_MS,
  provisionApp,
  signUpByEmailCode,
  startMailbox,
  uniqueName,
} from '@svc/testkit';
import * as oauth from 'oauth4webapi';
import * as client from 'openid-client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Keychain, launchChromium } from './chromium-kit';
import { ensureTerms, type OidcPagesHost, startOidcPages } from './pages-kit';
import { type RelyingPartyServer, startRelyingParty } from './rp-kit';

jest.setTimeout(180_000);

let mailbox: Mailbox;
let oidc: OidcPagesHost;
let rpServer: RelyingPartyServer;
let browser: Browser;
let context: BrowserContext;
let anchor: string;
const keychain = new Keychain();
const name = uniqueName('Tide Agent');
const email = `${uniqueName('agent')}@example.test`;

beforeAll(async () => {
  mailbox = await startMailbox();
  oidc = await startOidcPages({ smtpPort: mailbox.port, env: { OIDC_REGISTRATION: 'initial-access-token' } });
  await ensureTerms(oidc);
  rpServer = await startRelyingParty('localhost');
  anchor = (
    await provisionApp(oidc.infra, {
      methods: ['OIDC', 'PASSKEY_USERNAMELESS'],
      claims: { email: 'REQUIRED' },
      names: { 'en-US': name, 'zh-CN': name },
    })
  ).anchor;
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

async function signIn(url: URL, during?: (page: Page) => Promise<void>): Promise<URL> {
  const arrived = rpServer.next('/cb');
  const page = await keychain.page(context);
  await page.goto(url.href);
  await during?.(page);
  const received = await arrived;
  await page.close();
  return new URL(received.url);
}

test('openid-client 6: register (initial access token), PAR, a newcomer signs in, code exchange, /userinfo', async () => {
  const { token } = await createRegistrationToken(oidc.infra.provisioning, { anchor, uses: 2 }, new Date());
  const redirectUri = `${rpServer.origin}/cb`;
  // 1. Register: discovery and registration in one call; the answer is a ready configuration.
  const config = await client.dynamicClientRegistration(
    new URL(oidc.url),
    {
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: 'none',
      client_name: name,
      require_pushed_authorization_requests: true,
      dpop_bound_access_tokens: true,
    },
    client.None(),
    { initialAccessToken: token, execute: [client.allowInsecureRequests] },
  );
  const clientId = config.clientMetadata().client_id;
  const { clients } = await listOidcClients(oidc.infra.provisioning, anchor);
  expect(clients.find((c) => c.clientId === clientId)).toMatchObject({
    clientName: name,
    requirePar: true,
    requireDpop: true,
  });
  const dpop = client.getDPoPHandle(config, await client.randomDPoPKeyPair('ES256'));

  // 2. Push the authorization request; the browser's URL carries client_id and request_uri only.
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const url = await client.buildAuthorizationUrlWithPAR(
    config,
    {
      redirect_uri: redirectUri,
      scope: 'openid email offline_access',
      prompt: 'consent',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
    },
    { DPoP: dpop },
  );
  expect([...url.searchParams.keys()].sort()).toEqual(['client_id', 'request_uri']);

  // 3. The person signs up and consents on the pages.
  const callback = await signIn(url, async (page) => {
    await page.getByRole('heading', { name: `Sign in to ${name}` }).waitFor();
    await signUpByEmailCode(page, email, mailbox.codeFor);
    await page.getByLabel('I have read and accept the basic terms').check();
    await page.getByRole('button', { name: 'Accept and continue' }).click();
    await page.getByRole('heading', { name: `What ${name} can see` }).waitFor();
    await page.locator('input[name="consent_email"][value="GRANTED"]').check();
    await page.getByRole('button', { name: 'Save and continue' }).click();
    // prompt=consent (for offline_access) asks for the review too, even of a newcomer who has just decided.
    await page.waitForFunction((n) => document.title === `Review what ${n} can see`, name);
    await page.getByRole('button', { name: 'Save and continue' }).click();
  });

  // 4. The code exchange, /userinfo and a refresh, each with a proof by the pushed request's key.
  const tokens = await client.authorizationCodeGrant(
    config,
    callback,
    { pkceCodeVerifier: verifier, expectedState: state, idTokenExpected: true },
    undefined,
    { DPoP: dpop },
  );
  expect(tokens.token_type.toLowerCase()).toBe('dpop');
  const sub = tokens.claims()?.sub as string;
  expect((await client.fetchUserInfo(config, tokens.access_token, sub, { DPoP: dpop })).email).toBe(email);
  const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token as string, undefined, {
    DPoP: dpop,
  });
  expect(refreshed.token_type.toLowerCase()).toBe('dpop');
  // The bound refresh token is refused without a proof by the same key.
  const other = client.getDPoPHandle(config, await client.randomDPoPKeyPair('ES256'));
  await expect(
    client.refreshTokenGrant(config, refreshed.refresh_token as string, undefined, { DPoP: other }),
  ).rejects.toMatchObject({ error: 'invalid_grant' });

  // 5. oauth4webapi 3 registers a confidential client with the token's second use; the held sign-in answers it.
  const issuer = new URL(oidc.url);
  const insecure = { [oauth.allowInsecureRequests]: true };
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
  const registered = await oauth.processDynamicClientRegistrationResponse(
    await oauth.dynamicClientRegistrationRequest(
      as,
      { redirect_uris: [redirectUri] },
      { ...insecure, initialAccessToken: token },
    ),
  );
  const oc: oauth.Client = { client_id: registered.client_id };
  const auth = oauth.ClientSecretBasic(registered.client_secret as string);
  const v2 = oauth.generateRandomCodeVerifier();
  const pushed = await oauth.processPushedAuthorizationResponse(
    as,
    oc,
    await oauth.pushedAuthorizationRequest(
      as,
      oc,
      auth,
      {
        redirect_uri: redirectUri,
        response_type: 'code',
        scope: 'openid email',
        code_challenge: await oauth.calculatePKCECodeChallenge(v2),
        code_challenge_method: 'S256',
      },
      insecure,
    ),
  );
  const authorize = new URL(as.authorization_endpoint as string);
  authorize.searchParams.set('client_id', registered.client_id);
  authorize.searchParams.set('request_uri', pushed.request_uri);
  const back = await signIn(authorize);
  const params = oauth.validateAuthResponse(as, oc, back, oauth.expectNoState);
  const result = await oauth.processAuthorizationCodeResponse(
    as,
    oc,
    await oauth.authorizationCodeGrantRequest(as, oc, auth, params, redirectUri, v2, insecure),
  );
  const claims = oauth.getValidatedIdTokenClaims(result);
  const info = await oauth.processUserInfoResponse(
    as,
    oc,
    claims?.sub as string,
    await oauth.userInfoRequest(as, oc, result.access_token, insecure),
  );
  expect(info.email).toBe(email);

  // The token's two uses are spent.
  const spent = await oauth.dynamicClientRegistrationRequest(
    as,
    { redirect_uris: [redirectUri] },
    { ...insecure, initialAccessToken: token },
  );
  expect(spent.status).toBe(401);
});
