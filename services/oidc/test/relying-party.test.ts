// End to end in headless Chromium with real relying-party libraries: a person signs up on connect (email code,
// passkey), then signs in on the OIDC host with the same passkey; openid-client v6 drives code+PKCE, id_token,
// "id_token token", "code id_token" (form_post) and "code id_token token", validating signatures, nonce, c_hash
// and state, while the tests check at_hash themselves; oidc-client-ts (an independent code base) runs the code
// flow. Also: the sign-in session across clients, prompt=login, max_age, prompt=none without a sign-in and
// without consent, a redirect URI mismatch (no redirect) and a missing nonce.
import { createAgreementsStore } from '@svc/issuance/stores';
import { publishTerms } from '@svc/provisioning';
import {
  type Backend,
  type ConnectProcess,
  type Mailbox,
  PAGE_STEP_CEILING_MS,
  provisionBackend,
  signUpByEmailCode,
  startConnectProcess,
  startMailbox,
  uniqueName,
  useInfra,
} from '@svc/testkit';
import { decodeJwt } from 'jose';
import jsonwebtoken from 'jsonwebtoken';
import jwksRsa from 'jwks-rsa';
import { InMemoryWebStorage, OidcClient, WebStorageStateStore } from 'oidc-client-ts';
import * as client from 'openid-client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Keychain, launchChromium, shootBothLocales } from './chromium-kit';
import {
  authorizeRequestUrl,
  type OidcPagesHost,
  provisionRelyingParty,
  type RelyingPartyFixture,
  startOidcPages,
} from './pages-kit';
import { formPostRequest, idTokenHash, type RelyingPartyServer, startRelyingParty } from './rp-kit';

jest.setTimeout(180_000);

const infra = useInfra();
let mailbox: Mailbox;
let connect: ConnectProcess;
let oidc: OidcPagesHost;
let rpServer: RelyingPartyServer;
let browser: Browser;
let context: BrowserContext;
let rp: RelyingPartyFixture;
let config: client.Configuration;
const keychain = new Keychain();
const email = `${uniqueName('person')}@example.test`;

beforeAll(async () => {
  mailbox = await startMailbox();
  connect = await startConnectProcess({ smtpPort: mailbox.port });
  oidc = await startOidcPages({ smtpPort: mailbox.port });
  rpServer = await startRelyingParty('localhost');
  if (!(await createAgreementsStore(infra.db).currentTerms())) {
    const doc = (title: string) => ({
      schemaVersion: 1,
      title,
      sections: [{ heading: '1', paragraphs: ['Be kind.'] }],
    });
    await publishTerms(
      infra.provisioning,
      { locales: { 'en-US': { document: doc('Basic Terms') }, 'zh-CN': { document: doc('基本条款') } } },
      connect.url,
    );
  }
  rp = await provisionRelyingParty(oidc, {
    redirectUris: [`${rpServer.origin}/cb`, `${rpServer.origin}/form`],
    claims: { email: 'REQUIRED', firstName: 'OPTIONAL', lastName: 'SYNTHETIC_FALLBACK' },
    names: { 'en-US': 'Harbor Photos', 'zh-CN': '港湾相册' },
  });
  config = await discover(rp);
  browser = await launchChromium();
  context = await browser.newContext({ locale: 'en-US' });
  context.setDefaultTimeout(PAGE_STEP_CEILING_MS);
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await rpServer?.close();
  await oidc?.close();
  await connect?.close();
  await mailbox?.close();
});

/** openid-client's configuration for a client, from the discovery document over (loopback) HTTP. */
function discover(fixture: RelyingPartyFixture, execute: ((c: client.Configuration) => void)[] = []) {
  const auth = fixture.clientSecret ? client.ClientSecretBasic(fixture.clientSecret) : client.None();
  return client.discovery(
    new URL(oidc.url),
    fixture.clientId,
    { redirect_uris: [fixture.redirectUri] },
    auth,
    {
      execute: [client.allowInsecureRequests, ...execute],
    },
  );
}

const atRp = (page: Page, path = '/cb') =>
  page.waitForURL((u) => u.origin === rpServer.origin && u.pathname === path);

interface AuthorizationRequest {
  url: URL;
  state: string;
  nonce: string | undefined;
  verifier: string | undefined;
}

/**
 * An authorization request built by openid-client for `configuration` (to rp's redirect URI unless `params` names
 * another): a fresh state, a fresh nonce unless `nonce: false`, and a PKCE S256 challenge when `pkce`.
 */
async function authorizationRequest(
  configuration: client.Configuration,
  params: Record<string, string>,
  opts: { nonce?: boolean; pkce?: boolean } = {},
): Promise<AuthorizationRequest> {
  const state = client.randomState();
  const nonce = opts.nonce === false ? undefined : client.randomNonce();
  const verifier = opts.pkce ? client.randomPKCECodeVerifier() : undefined;
  const url = client.buildAuthorizationUrl(configuration, {
    redirect_uri: rp.redirectUri,
    state,
    ...(nonce ? { nonce } : {}),
    ...(verifier
      ? { code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' }
      : {}),
    ...params,
  });
  return { url, state, nonce, verifier };
}

/**
 * Opens `url` in a page of the signed-in browser (its passkeys on a virtual authenticator), lets `during` act on the
 * pages on the way (sign-in, consent), and returns where the browser landed at the RP.
 */
async function landAtRp(url: URL, during?: (page: Page) => Promise<void>): Promise<URL> {
  const page = await keychain.page(context);
  await page.goto(url.href);
  await during?.(page);
  await atRp(page);
  const landed = new URL(page.url());
  await page.close();
  return landed;
}

/** Common ID token checks beyond what the library checked. */
function expectIdToken(idToken: string, opts: { nonce?: string; accessToken?: string; code?: string }) {
  const claims = decodeJwt(idToken);
  expect(claims.iss).toBe(oidc.url);
  expect(claims.aud).toBe(rp.clientId);
  // A passkey sign-in with user verification; the virtual authenticator's keys are device-bound.
  expect(claims.amr).toEqual(['hwk', 'user', 'mfa']);
  expect(claims.acr).toBe('phrh');
  expect(claims.sid).toMatch(/^[A-Za-z0-9_-]{43}$/);
  expect(typeof claims.auth_time).toBe('number');
  if (opts.nonce) expect(claims.nonce).toBe(opts.nonce);
  if (opts.accessToken) expect(claims.at_hash).toBe(idTokenHash(opts.accessToken));
  else expect(claims.at_hash).toBeUndefined();
  if (opts.code) expect(claims.c_hash).toBe(idTokenHash(opts.code));
  else expect(claims.c_hash).toBeUndefined();
  return claims;
}

describe('a person signed up on connect signs in on the OIDC host with the same passkey', () => {
  let backend: Backend;

  test('sign up on connect: email code, passkey, terms', async () => {
    backend = await provisionBackend(infra, connect.url, {});
    const est = await backend.establish({ returnMethods: [{ type: 'REVEAL' }] });
    expect(est.status).toBe(200);
    const page = await keychain.page(context);
    await page.goto(`${connect.url}/inquiries/${est.body.exposureKey}`);
    await signUpByEmailCode(page, email, mailbox.codeFor);
    await page.getByLabel('I have read and accept the basic terms').check();
    await page.getByRole('button', { name: 'Accept and continue' }).click();
    await page.getByRole('heading', { name: 'You are signed in' }).waitFor();
    await page.close();
    expect(keychain.credentials).toHaveLength(1);
  });

  test('code + PKCE with openid-client: passkey sign-in, consent, code exchange, at_hash', async () => {
    const { url, state, nonce, verifier } = await authorizationRequest(
      config,
      { scope: 'openid email profile' },
      { pkce: true },
    );
    const landed = await landAtRp(url, async (page) => {
      await page.getByRole('heading', { name: 'Sign in to Harbor Photos' }).waitFor();
      await shootBothLocales(page, '01-login');
      await page.getByRole('button', { name: 'Sign in with a passkey' }).click();

      await page.getByRole('heading', { name: 'What Harbor Photos can see' }).waitFor();
      await shootBothLocales(page, '02-consent');
      await page.locator('input[name="consent_email"][value="GRANTED"]').check();
      await page.locator('input[name="consent_firstName"][value="GRANTED"]').check();
      await page.locator('#value_firstName').fill('Grace');
      await page.locator('input[name="consent_lastName"][value="DENIED"]').check();
      await page.getByRole('button', { name: 'Save and continue' }).click();
    });
    expect(landed.searchParams.get('iss')).toBe(oidc.url);

    const tokens = await client.authorizationCodeGrant(config, landed, {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
      idTokenExpected: true,
    });
    expectIdToken(tokens.id_token as string, { nonce, accessToken: tokens.access_token });
    const claims = tokens.claims();
    expect(claims?.sub).toBeTruthy();
    const access = decodeJwt(tokens.access_token);
    expect(access.aud).toBe(rp.anchor);
    expect(access.sub).toBe(claims?.sub);
    const info = await client.fetchUserInfo(config, tokens.access_token, claims?.sub as string);
    expect(info).toMatchObject({ sub: claims?.sub, email, given_name: 'Grace' });
  });

  test('id_token: the sign-in on this host serves a second request without any page', async () => {
    const implicit = await discover(rp, [client.useIdTokenResponseType]);
    const { url, nonce, state } = await authorizationRequest(implicit, { scope: 'openid email' });
    const landed = await landAtRp(url);
    expect(landed.search).toBe('');
    const claims = await client.implicitAuthentication(implicit, landed, nonce!, { expectedState: state });
    const idToken = new URLSearchParams(landed.hash.slice(1)).get('id_token') as string;
    expectIdToken(idToken, { nonce });
    // Only response_type=id_token carries profile claims, as the scope and the person's grant allow.
    expect(claims).toMatchObject({ email });
  });

  test('id_token token: at_hash of the front-channel access token', async () => {
    const implicit = await discover(rp, [client.useIdTokenResponseType]);
    const { url, nonce, state } = await authorizationRequest(implicit, {
      response_type: 'id_token token',
      scope: 'openid',
    });
    const landed = await landAtRp(url);
    await client.implicitAuthentication(implicit, landed, nonce!, { expectedState: state });
    const fragment = new URLSearchParams(landed.hash.slice(1));
    expect(fragment.get('token_type')).toBe('Bearer');
    const accessToken = fragment.get('access_token') as string;
    const claims = expectIdToken(fragment.get('id_token') as string, { nonce, accessToken });
    expect(claims.email).toBeUndefined();
    expect(decodeJwt(accessToken).sub).toBe(claims.sub);
  });

  test('code id_token by form_post: c_hash checked by openid-client; the /token ID token has at_hash, no c_hash', async () => {
    const formRp = { ...rp, redirectUri: `${rpServer.origin}/form` };
    const hybrid = await discover(formRp, [client.useCodeIdTokenResponseType]);
    const { url, nonce, state, verifier } = await authorizationRequest(
      hybrid,
      { redirect_uri: formRp.redirectUri, response_mode: 'form_post', scope: 'openid' },
      { pkce: true },
    );
    const page = await keychain.page(context);
    const posted = rpServer.next('/form');
    await page.goto(url.href);
    const received = await posted;
    await page.close();
    expect(received.method).toBe('POST');
    const body = new URLSearchParams(received.body);
    expectIdToken(body.get('id_token') as string, { nonce, code: body.get('code') as string });
    const tokens = await client.authorizationCodeGrant(hybrid, formPostRequest(received), {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
    });
    const fromToken = decodeJwt(tokens.id_token as string);
    expect(fromToken.at_hash).toBe(idTokenHash(tokens.access_token));
    expect(fromToken.c_hash).toBeUndefined();
  });

  test('code id_token token: c_hash and at_hash in the fragment, then the code exchange', async () => {
    const hybrid = await discover(rp, [client.useCodeIdTokenResponseType]);
    const { url, nonce, state } = await authorizationRequest(hybrid, {
      response_type: 'code id_token token',
      scope: 'openid',
    });
    const landed = await landAtRp(url);
    const fragment = new URLSearchParams(landed.hash.slice(1));
    expectIdToken(fragment.get('id_token') as string, {
      nonce,
      code: fragment.get('code') as string,
      accessToken: fragment.get('access_token') as string,
    });
    const tokens = await client.authorizationCodeGrant(hybrid, landed, {
      expectedState: state,
      expectedNonce: nonce,
    });
    expect(decodeJwt(tokens.id_token as string).at_hash).toBe(idTokenHash(tokens.access_token));
  });

  test('oidc-client-ts (a second, independent RP library): code + PKCE with a public client', async () => {
    const spa = await provisionRelyingParty(oidc, {
      redirectUris: [`${rpServer.origin}/spa`],
      authMethod: 'none',
      responseTypes: ['code'],
      claims: { email: 'OPTIONAL' },
      names: { 'en-US': 'Lighthouse Maps', 'zh-CN': '灯塔地图' },
    });
    const rpClient = new OidcClient({
      authority: oidc.url,
      client_id: spa.clientId,
      redirect_uri: spa.redirectUri,
      response_type: 'code',
      scope: 'openid email',
      loadUserInfo: true,
      stateStore: new WebStorageStateStore({ store: new InMemoryWebStorage() }),
    });
    const request = await rpClient.createSigninRequest({});
    const page = await keychain.page(context);
    await page.goto(request.url);
    // Already signed in on this host: only this application's consent is asked.
    await page.getByRole('heading', { name: 'What Lighthouse Maps can see' }).waitFor();
    await page.locator('input[name="consent_email"][value="GRANTED"]').check();
    await page.getByRole('button', { name: 'Save and continue' }).click();
    await atRp(page, '/spa');
    const landed = page.url();
    await page.close();
    const response = await rpClient.processSigninResponse(landed);
    expect(response.profile.sub).toBeTruthy();
    expect(response.profile.email).toBe(email);
    // A third verifier, independent of both libraries: jsonwebtoken with keys from jwks-rsa.
    const jwks = jwksRsa({ jwksUri: `${oidc.url}/.well-known/jwks.json` });
    const kid = (
      jsonwebtoken.decode(response.id_token as string, { complete: true }) as { header: { kid: string } }
    ).header.kid;
    const key = (await jwks.getSigningKey(kid)).getPublicKey();
    const verified = jsonwebtoken.verify(response.id_token as string, key, {
      algorithms: ['RS256'],
      audience: spa.clientId,
      issuer: oidc.url,
    }) as { sub: string; at_hash: string };
    expect(verified.sub).toBe(response.profile.sub);
    expect(verified.at_hash).toBe(idTokenHash(response.access_token));
  });

  test('prompt=login and max_age=0 force a new passkey sign-in; auth_time moves on', async () => {
    for (const extra of [{ prompt: 'login' }, { max_age: '0' }] as Record<string, string>[]) {
      const { url, nonce, state, verifier } = await authorizationRequest(
        config,
        { scope: 'openid', ...extra },
        { pkce: true },
      );
      const before = Math.floor(Date.now() / 1000);
      const landed = await landAtRp(url, (page) =>
        page.getByRole('button', { name: 'Sign in with a passkey' }).click(),
      );
      const tokens = await client.authorizationCodeGrant(config, landed, {
        pkceCodeVerifier: verifier,
        expectedState: state,
        expectedNonce: nonce,
        maxAge: extra.max_age === undefined ? undefined : 60,
      });
      expect(tokens.claims()?.auth_time).toBeGreaterThanOrEqual(before);
    }
  });

  test('the sign-in cookie: HttpOnly, SameSite=Lax, host-only', async () => {
    const cookie = (await context.cookies(oidc.url)).find((c) => c.name === 'oidc_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/', domain: 'localhost' });
    expect(cookie?.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  test('prompt=consent: a review of every claim, then the code; cancelling answers access_denied', async () => {
    const reviewUrl = async (state: string, verifier: string) =>
      client.buildAuthorizationUrl(config, {
        redirect_uri: rp.redirectUri,
        scope: 'openid email',
        state,
        prompt: 'consent',
        code_challenge: await client.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      });
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const page = await keychain.page(context);
    await page.goto((await reviewUrl(state, verifier)).href);
    await page.getByRole('heading', { name: 'What Harbor Photos can see' }).waitFor();
    expect(await page.title()).toBe('Review what Harbor Photos can see');
    // Every claim the application asks about, as decided before.
    expect(await page.locator('input[name="consent_email"][value="GRANTED"]').isChecked()).toBe(true);
    expect(await page.locator('input[name="consent_lastName"][value="DENIED"]').isChecked()).toBe(true);
    await shootBothLocales(page, '04-consent-review');
    await page.getByRole('button', { name: 'Save and continue' }).click();
    await atRp(page);
    const tokens = await client.authorizationCodeGrant(config, new URL(page.url()), {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
    expect(tokens.access_token).toBeTruthy();

    const declined = client.randomState();
    await page.goto((await reviewUrl(declined, client.randomPKCECodeVerifier())).href);
    await page.getByRole('button', { name: 'Cancel and return to Harbor Photos' }).click();
    await atRp(page);
    const landed = new URL(page.url());
    await page.close();
    await expect(
      client.authorizationCodeGrant(config, landed, { expectedState: declined }),
    ).rejects.toMatchObject({
      error: 'access_denied',
    });
  });

  test('prompt=none with a sign-in but no consent for a new application: consent_required', async () => {
    const other = await provisionRelyingParty(oidc, {
      redirectUris: [`${rpServer.origin}/cb`],
      claims: { email: 'REQUIRED' },
    });
    const otherConfig = await discover(other);
    const { url, state } = await authorizationRequest(
      otherConfig,
      { redirect_uri: other.redirectUri, scope: 'openid', prompt: 'none' },
      { nonce: false },
    );
    const landed = await landAtRp(url);
    await expect(
      client.authorizationCodeGrant(otherConfig, landed, { expectedState: state }),
    ).rejects.toMatchObject({
      error: 'consent_required',
    });
  });
});

describe('a newcomer signs up on the OIDC pages', () => {
  test('email code, passkey, basic terms, consent, then the code; the passkey then signs in on connect', async () => {
    const newcomer = `${uniqueName('newcomer')}@example.test`;
    const own = new Keychain();
    const fresh = await browser.newContext({ locale: 'zh-CN' });
    fresh.setDefaultTimeout(PAGE_STEP_CEILING_MS);
    const { url, state, nonce, verifier } = await authorizationRequest(
      config,
      { scope: 'openid email', ui_locales: 'en' },
      { pkce: true },
    );
    const page = await own.page(fresh);
    await page.goto(url.href);
    // ui_locales=en wins over the browser's Chinese.
    await page.getByRole('heading', { name: 'Sign in to Harbor Photos' }).waitFor();
    await signUpByEmailCode(page, newcomer, mailbox.codeFor);
    await page.getByLabel('I have read and accept the basic terms').check();
    await page.getByRole('button', { name: 'Accept and continue' }).click();
    await page.getByRole('heading', { name: 'What Harbor Photos can see' }).waitFor();
    await page.locator('input[name="consent_email"][value="GRANTED"]').check();
    await page.locator('input[name="consent_firstName"][value="DENIED"]').check();
    await page.locator('input[name="consent_lastName"][value="DENIED"]').check();
    await page.getByRole('button', { name: 'Save and continue' }).click();
    await atRp(page);
    const tokens = await client.authorizationCodeGrant(config, new URL(page.url()), {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
    });
    expect(tokens.claims()?.sub).toBeTruthy();
    // Signed up by emailed code (the passkey made then authenticated nothing yet): otp, no acr.
    expect(tokens.claims()?.amr).toEqual(['otp']);
    expect(tokens.claims()).not.toHaveProperty('acr');
    const account = await infra.db.account.findUniqueOrThrow({ where: { email: newcomer } });
    expect(account.status).toBe('ACTIVE');

    // The passkey made on the OIDC host signs in on connect.
    const backend = await provisionBackend(infra, connect.url, {});
    const est = await backend.establish({ returnMethods: [{ type: 'REVEAL' }] });
    await page.goto(`${connect.url}/inquiries/${est.body.exposureKey}?lang=en-US`);
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.getByRole('heading', { name: 'You are signed in' }).waitFor();
    await page.close();
    await fresh.close();
  });
});

describe('refusals', () => {
  test('prompt=none in a browser without a sign-in: login_required, no page', async () => {
    const fresh = await browser.newContext({ locale: 'en-US' });
    const page = await fresh.newPage();
    const { url, state } = await authorizationRequest(
      config,
      { scope: 'openid', prompt: 'none' },
      { nonce: false },
    );
    await page.goto(url.href);
    await atRp(page);
    const landed = new URL(page.url());
    await fresh.close();
    await expect(
      client.authorizationCodeGrant(config, landed, { expectedState: state }),
    ).rejects.toMatchObject({
      error: 'login_required',
    });
  });

  test('a redirect URI the client did not register: an error page on the OIDC host, nothing sent', async () => {
    const before = rpServer.received.length;
    const page = await context.newPage();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: `${rpServer.origin}/elsewhere`,
      scope: 'openid',
      state: 'x',
    });
    const res = await page.goto(url.href);
    expect(res?.status()).toBe(400);
    expect(new URL(page.url()).origin).toBe(oidc.url);
    await page.getByText('has not registered').waitFor();
    await shootBothLocales(page, '03-redirect-mismatch');
    await page.close();
    expect(rpServer.received.length).toBe(before);
  });

  test('response_type=id_token without a nonce: invalid_request in the fragment', async () => {
    const implicit = await discover(rp, [client.useIdTokenResponseType]);
    const state = client.randomState();
    const page = await context.newPage();
    await page.goto(authorizeRequestUrl(oidc.url, rp, { response_type: 'id_token', state }));
    await atRp(page);
    const landed = new URL(page.url());
    await page.close();
    expect(new URLSearchParams(landed.hash.slice(1)).get('error')).toBe('invalid_request');
    await expect(
      client.implicitAuthentication(implicit, landed, 'any', { expectedState: state }),
    ).rejects.toMatchObject({
      error: 'invalid_request',
    });
  });
});

describe('end-session', () => {
  test('ends the sign-in on this host: the next prompt=none is login_required', async () => {
    const implicit = await discover(rp, [client.useIdTokenResponseType]);
    const { url } = await authorizationRequest(implicit, { scope: 'openid' });
    const page = await keychain.page(context);
    await page.goto(url.href);
    await atRp(page);
    const idToken = new URLSearchParams(new URL(page.url()).hash.slice(1)).get('id_token') as string;
    expect(idToken).toBeTruthy();
    const signedOut = await page.goto(client.buildEndSessionUrl(config, { id_token_hint: idToken }).href);
    expect(signedOut?.status()).toBe(200);
    expect((await context.cookies(oidc.url)).find((c) => c.name === 'oidc_session')).toBeUndefined();
    const again = await authorizationRequest(config, { scope: 'openid', prompt: 'none' }, { nonce: false });
    await page.goto(again.url.href);
    await atRp(page);
    const landed = new URL(page.url());
    await page.close();
    await expect(
      client.authorizationCodeGrant(config, landed, { expectedState: again.state }),
    ).rejects.toMatchObject({
      error: 'login_required',
    });
  });
});
