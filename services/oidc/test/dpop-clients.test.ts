// DPoP (RFC 9449) end to end in Chromium with the stock libraries, from outside: openid-client 6 pushes its request
// with a proof (the code is bound to the key), a newcomer signs up, and the code exchange, /userinfo and the refresh
// all carry proofs (token_type DPoP, cnf.jkt); the bound refresh token is refused without a proof and with another
// key's. Then oauth4webapi 3 for a second public client without PAR: the held sign-in answers, and the same holds.
import { createOidcClient } from '@svc/provisioning';
import {
  type Mailbox,
  PAGE_STEP_CEILING_MS,
  signUpByEmailCode,
  startMailbox,
  uniqueName,
} from '@svc/testkit';
import { calculateJwkThumbprint, decodeJwt, type JWK } from 'jose';
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
const name = uniqueName('Dee Pop');
const email = `${uniqueName('dpop')}@example.test`;

beforeAll(async () => {
  mailbox = await startMailbox();
  // Its own Redis names for the host's parked requests and interactions, as backchannel-logout.test.ts has: in the
  // full suite this file's held sign-in twice never called back while other files ran beside it on the default prefix.
  oidc = await startOidcPages({ smtpPort: mailbox.port, env: { OIDC_REDIS_PREFIX: uniqueName('dpopc') } });
  await ensureTerms(oidc);
  rpServer = await startRelyingParty('localhost');
  rp = await provisionRelyingParty(oidc, {
    redirectUris: [`${rpServer.origin}/cb`],
    responseTypes: ['code'],
    claims: { email: 'REQUIRED' },
    names: { 'en-US': name, 'zh-CN': name },
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

/**
 * `work`, or a failure naming `label` after `ms`: in one full CI run in three the first test hung to its 180 s
 * ceiling with no step failing (the second test, which needs the first's sign-in, then passed), so every call
 * without a timeout of its own is bounded here, and the next failure names the step that hung.
 */
async function step<T>(label: string, work: Promise<T>, ms = 60_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${label}: no answer within ${ms / 1000} s`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

async function signIn(
  url: URL,
  during?: (page: import('playwright-core').Page) => Promise<void>,
): Promise<URL> {
  const arrived = rpServer.next('/cb');
  const page = await step('a new page with the authenticator', keychain.page(context));
  await page.goto(url.href);
  await during?.(page);
  // Bounded, and naming the page the browser shows, so a sign-in that never reaches the callback fails at once
  // with what stopped it instead of at the test's ceiling.
  let timer: NodeJS.Timeout | undefined;
  const stalled = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      page
        .evaluate(() => `${document.title} | ${location.pathname} | ${document.body.textContent}`)
        .catch((err: Error) => `(the page cannot be read: ${err.message})`)
        .then((shown) =>
          reject(new Error(`no callback within 30 s; the page shows: ${shown.slice(0, 600)}`)),
        );
    }, 30_000);
  });
  // The timer is cleared once the callback arrives: left running, it fired 30 s later into the next test.
  const received = await Promise.race([arrived, stalled]).finally(() => clearTimeout(timer));
  await step('closing the page (and reading its passkeys)', page.close());
  return new URL(received.url);
}

/** A public client of the same application. */
async function publicClient(): Promise<string> {
  const created = await createOidcClient(oidc.infra.provisioning, {
    anchor: rp.anchor,
    redirectUris: [rp.redirectUri],
    authMethod: 'none',
  });
  return created.clientId;
}

test('openid-client 6: PAR and code exchange with DPoP, /userinfo and refresh bound to the key', async () => {
  const clientId = await publicClient();
  const config = await step(
    'discovery',
    client.discovery(
      new URL(oidc.url),
      clientId,
      { redirect_uris: [rp.redirectUri], token_endpoint_auth_method: 'none' },
      client.None(),
      { execute: [client.allowInsecureRequests] },
    ),
  );
  expect(config.serverMetadata().dpop_signing_alg_values_supported).toEqual(['ES256', 'EdDSA', 'RS256']);
  const keyPair = await client.randomDPoPKeyPair('ES256');
  const DPoP = client.getDPoPHandle(config, keyPair);
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const url = await client.buildAuthorizationUrlWithPAR(
    config,
    {
      redirect_uri: rp.redirectUri,
      scope: 'openid email offline_access',
      // offline_access is granted only with prompt=consent (OpenID Connect Core 11).
      prompt: 'consent',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    },
    { DPoP },
  );
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
  const tokens = await step(
    'the code exchange',
    client.authorizationCodeGrant(
      config,
      callback,
      { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce, idTokenExpected: true },
      undefined,
      { DPoP },
    ),
  );
  expect(tokens.token_type).toBe('dpop');
  const { kty, crv, x, y } = await crypto.subtle.exportKey('jwk', keyPair.publicKey);
  const jkt = await calculateJwkThumbprint({ kty, crv, x, y } as JWK, 'sha256');
  expect(decodeJwt(tokens.access_token).cnf).toEqual({ jkt });
  const sub = tokens.claims()?.sub as string;
  expect((await client.fetchUserInfo(config, tokens.access_token, sub, { DPoP })).email).toBe(email);
  // Presented as Bearer (no DPoP handle), the bound token is refused.
  await expect(client.fetchUserInfo(config, tokens.access_token, sub)).rejects.toBeDefined();

  const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!, undefined, { DPoP });
  expect(refreshed.token_type).toBe('dpop');
  expect(decodeJwt(refreshed.access_token).cnf).toEqual({ jkt });
  const other = client.getDPoPHandle(config, await client.randomDPoPKeyPair('EdDSA'));
  await expect(
    client.refreshTokenGrant(config, refreshed.refresh_token!, undefined, { DPoP: other }),
  ).rejects.toMatchObject({ error: 'invalid_grant' });
  await expect(client.refreshTokenGrant(config, refreshed.refresh_token!)).rejects.toMatchObject({
    error: 'invalid_grant',
  });
  // Neither refusal consumed it.
  const again = await client.refreshTokenGrant(config, refreshed.refresh_token!, undefined, { DPoP });
  expect(again.token_type).toBe('dpop');
});

test('oauth4webapi 3: code exchange with DPoP (the held sign-in answers after consent), /userinfo and refresh', async () => {
  const clientId = await publicClient();
  const issuer = new URL(oidc.url);
  const insecure = { [oauth.allowInsecureRequests]: true };
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
  const oc: oauth.Client = { client_id: clientId };
  const auth = oauth.None();
  const DPoP = oauth.DPoP(oc, await oauth.generateKeyPair('RS256'));
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const nonce = oauth.generateRandomNonce();
  const url = new URL(as.authorization_endpoint as string);
  for (const [k, v] of Object.entries({
    client_id: clientId,
    redirect_uri: rp.redirectUri,
    response_type: 'code',
    scope: 'openid email offline_access',
    prompt: 'consent',
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
  }))
    url.searchParams.set(k, v);
  // The held sign-in answers once the person has reviewed what the application sees (prompt=consent).
  const callback = await signIn(url, async (page) => {
    await page.waitForFunction((n) => document.title === `Review what ${n} can see`, name);
    await page.getByRole('button', { name: 'Save and continue' }).click();
  });
  const params = oauth.validateAuthResponse(as, oc, callback, state);
  const result = await oauth.processAuthorizationCodeResponse(
    as,
    oc,
    await oauth.authorizationCodeGrantRequest(as, oc, auth, params, rp.redirectUri, verifier, {
      ...insecure,
      DPoP,
    }),
    { expectedNonce: nonce },
  );
  expect(result.token_type).toBe('dpop');
  const sub = oauth.getValidatedIdTokenClaims(result)?.sub as string;
  const info = await oauth.processUserInfoResponse(
    as,
    oc,
    sub,
    await oauth.userInfoRequest(as, oc, result.access_token, { ...insecure, DPoP }),
  );
  expect(info.email).toBe(email);
  const refreshed = await oauth.processRefreshTokenResponse(
    as,
    oc,
    await oauth.refreshTokenGrantRequest(as, oc, auth, result.refresh_token!, { ...insecure, DPoP }),
  );
  expect(refreshed.token_type).toBe('dpop');
  const thief = oauth.DPoP(oc, await oauth.generateKeyPair('ES256'));
  await expect(
    oauth.processRefreshTokenResponse(
      as,
      oc,
      await oauth.refreshTokenGrantRequest(as, oc, auth, refreshed.refresh_token!, {
        ...insecure,
        DPoP: thief,
      }),
    ),
  ).rejects.toMatchObject({ error: 'invalid_grant' });
});
