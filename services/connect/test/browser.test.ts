// End to end in headless Chromium: establish from a backend, sign up by emailed code, register a passkey,
// accept the terms, consent, return by CALLBACK, redeem, verify against the session host's JWK Set, refresh,
// then usernameless sign-in again for REVEAL and STATUS_POLL (and their warning), a planted flow cookie replayed
// after the victim signs in, a realize-constraint mismatch, and an errand.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { issueSession } from '@svc/issuance';
import { createAgreementsStore, createApplicationsStore } from '@svc/issuance/stores';
import { publishTerms } from '@svc/provisioning';
import {
  type Backend,
  makeAgent,
  PAGE_STEP_CEILING_MS,
  postJson,
  provisionBackend,
  uniqueName,
} from '@svc/testkit';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { addAuthenticator, type Credential, launchChromium, shootBothLocales } from './browser-kit';
import { useConnectHost, useSessionHost } from './helpers';

const cx = useConnectHost({ hostname: 'localhost' });
const session = useSessionHost();

jest.setTimeout(120_000);

let browser: Browser;
let context: BrowserContext;
let callbackServer: http.Server;
let callbackPort: number;
const callbacks: string[] = [];

beforeAll(async () => {
  if (!(await createAgreementsStore(cx.infra.db).currentTerms())) {
    const doc = (title: string) => ({
      schemaVersion: 1,
      title,
      sections: [
        { heading: '1', paragraphs: ['Be kind.'], link: { label: 'More', url: 'https://example.test/t' } },
      ],
    });
    await publishTerms(
      cx.infra.provisioning,
      { locales: { 'en-US': { document: doc('Basic Terms') }, 'zh-CN': { document: doc('基本条款') } } },
      cx.host.url,
    );
  }
  callbackServer = http.createServer((req, res) => {
    callbacks.push(req.url ?? '');
    res.setHeader('content-type', 'text/html');
    res.end('<!doctype html><title>Back in the app</title><p>Back in the app.</p>');
  });
  await new Promise<void>((r) => callbackServer.listen(0, '127.0.0.1', () => r()));
  callbackPort = (callbackServer.address() as AddressInfo).port;
  browser = await launchChromium();
  context = await browser.newContext({ locale: 'en-US' });
  context.setDefaultTimeout(PAGE_STEP_CEILING_MS);
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  callbackServer?.closeAllConnections();
  await new Promise((r) => callbackServer?.close(() => r(undefined)));
});

const keysOf = (est: { body: { exposureKey: string; hiddenKey: string } }) => ({
  exposureKey: est.body.exposureKey,
  hiddenKey: est.body.hiddenKey,
});
const redeem = (k: { exposureKey: string; hiddenKey: string }, confirmationKey: string) =>
  postJson(`${cx.host.url}/redeem`, { ...k, confirmationKey });

/** The passkey as the authenticator holds it (its signature counter moves on with every use). */
let credentials: Credential[] = [];

/** Each fresh page's virtual authenticator. */
const authenticators = new WeakMap<Page, Awaited<ReturnType<typeof addAuthenticator>>>();

/** A fresh page whose virtual authenticator holds the person's passkey; the counter is carried back on close. */
async function freshPage(): Promise<Page> {
  const page = await context.newPage();
  const authenticator = await addAuthenticator(context, page, credentials);
  authenticators.set(page, authenticator);
  const close = page.close.bind(page);
  page.close = async (o) => {
    credentials = await authenticator.credentials();
    return close(o);
  };
  return page;
}

async function passkeySignIn(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
}

describe('browser sign-in, end to end', () => {
  let backend: Backend;
  const email = `${uniqueName('person')}@example.test`;

  beforeAll(async () => {
    backend = await provisionBackend(cx.infra, cx.host.url, {
      claims: { email: 'REQUIRED', firstName: 'OPTIONAL', lastName: 'SYNTHETIC_FALLBACK' },
      names: { 'en-US': 'Lantern Notes', 'zh-CN': '灯笼笔记' },
    });
  });

  test('sign up by email code, passkey, terms, consent, CALLBACK, redeem, verify, refresh', async () => {
    const callbackUrl = `http://localhost:${callbackPort}/cb?state=xyz&exposureKey=forged#frag`;
    const est = await backend.establish({ returnMethods: [{ type: 'CALLBACK', payload: { callbackUrl } }] });
    expect(est.status).toBe(200);
    const page = await context.newPage();
    const authenticator = await addAuthenticator(context, page);
    await page.goto(`${cx.host.url}/inquiries/${est.body.exposureKey}`);
    expect(await page.textContent('h1')).toBe('Sign in to Lantern Notes');
    await shootBothLocales(page, '01-sign-in');

    await page.getByLabel('Email address').fill(email);
    await page.getByRole('button', { name: 'Send me a code' }).click();
    await page.getByLabel('Code').waitFor();
    await shootBothLocales(page, '02-email-code');
    await page.getByLabel('Code').fill('000000');
    await page.getByRole('button', { name: 'Continue' }).click();
    expect(await page.textContent('.notice')).toContain('not right');
    const code = await cx.mailbox.codeFor(email);
    await page.getByLabel('Code').fill(code);
    await page.getByRole('button', { name: 'Continue' }).click();

    await page.getByRole('button', { name: 'Create a passkey' }).waitFor();
    await shootBothLocales(page, '03-register-passkey');
    await page.getByRole('button', { name: 'Create a passkey' }).click();

    await page.getByRole('heading', { level: 1, name: 'Basic terms', exact: true }).waitFor();
    await shootBothLocales(page, '04-terms');
    await page.getByLabel('I have read and accept the basic terms').check();
    await page.getByRole('button', { name: 'Accept and continue' }).click();

    await page.getByRole('heading', { name: 'What Lantern Notes can see' }).waitFor();
    await shootBothLocales(page, '05-details');
    // Declining the REQUIRED email first: the page says why it cannot go on.
    await page.locator('input[name="consent_email"][value="DENIED"]').check();
    await page.locator('input[name="consent_firstName"][value="GRANTED"]').check();
    await page.locator('input[name="consent_lastName"][value="DENIED"]').check();
    await page.locator('#value_firstName').fill('Ada');
    await page.getByRole('button', { name: 'Save and continue' }).click();
    expect(await page.textContent('.notice')).toContain(
      'Lantern Notes needs this to continue: Email address',
    );
    await page.locator('input[name="consent_email"][value="GRANTED"]').check();
    await page.getByRole('button', { name: 'Save and continue' }).click();

    await page.waitForURL((u) => u.port === String(callbackPort), { timeout: 60_000 });
    const landed = new URL(page.url());
    expect(landed.pathname).toBe('/cb');
    expect(landed.hash).toBe('#frag');
    expect(landed.searchParams.get('state')).toBe('xyz');
    expect(landed.searchParams.getAll('exposureKey')).toEqual([est.body.exposureKey]);
    const confirmationKey = landed.searchParams.get('confirmationKey')!;
    expect(confirmationKey).toMatch(/^iqc_/);
    credentials = await authenticator.credentials();
    expect(credentials).toHaveLength(1);
    expect(credentials[0]?.isResidentCredential).toBe(true);
    await page.close();

    const res = await redeem(keysOf(est), confirmationKey);
    expect(res.status).toBe(200);
    expect(res.body.claims.email).toEqual({ requirement: 'REQUIRED', state: 'GRANTED' });
    expect(res.body.claims.firstName).toEqual({ requirement: 'OPTIONAL', state: 'GRANTED' });
    expect(res.body.claims.lastName).toEqual({ requirement: 'SYNTHETIC_FALLBACK', state: 'DENIED' });
    // An independent verifier: the session host's published JWK Set, fetched over HTTP.
    const jwks = createRemoteJWKSet(
      new URL(`${session.url}/applications/${backend.fixture.anchor}/jwks.json`),
    );
    const verified = await jwtVerify(res.body.accessToken, jwks, {
      audience: backend.fixture.anchor,
      typ: 'vnd.service.application-access+jwt',
      algorithms: ['RS256'],
    });
    expect(verified.payload.sub).toBeTruthy();
    const userinfo = await fetch(`${session.url}/userinfo`, {
      headers: { authorization: `Bearer ${res.body.accessToken}` },
    });
    expect(userinfo.status).toBe(200);
    expect(await userinfo.json()).toMatchObject({ email, given_name: 'Ada' });

    const refreshed = await postJson(`${cx.host.url}/refresh`, { refreshToken: res.body.refreshToken });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.claims.email).toEqual({ requirement: 'REQUIRED', state: 'GRANTED' });
    await jwtVerify(refreshed.body.accessToken, jwks, { audience: backend.fixture.anchor });

    const again = await redeem(keysOf(est), confirmationKey);
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ reason: 'InquiryAlreadyRedeemed' });
  });

  test('usernameless sign-in again in a fresh page: REVEAL', async () => {
    const est = await backend.establish({ returnMethods: [{ type: 'REVEAL' }] });
    const page = await freshPage();
    await passkeySignIn(page, `${cx.host.url}/inquiries/${est.body.exposureKey}`);
    await page.getByRole('heading', { name: 'You are signed in' }).waitFor();
    const confirmationKey = await page.inputValue('#confirmation-key');
    await shootBothLocales(page, '06-reveal');
    await page.close();
    expect((await redeem(keysOf(est), confirmationKey)).status).toBe(200);
  });

  test('STATUS_POLL: the originating client receives the confirmation key by polling', async () => {
    const est = await backend.establish({ returnMethods: [{ type: 'STATUS_POLL' }] });
    const poll = () =>
      postJson(`${cx.host.url}/inquiries/${est.body.exposureKey}/status`, { hiddenKey: est.body.hiddenKey });
    expect((await poll()).body.state).toBe('established');
    const early = await redeem(keysOf(est), 'iqc_not-yet');
    expect(early.body).toEqual({ reason: 'InquiryNotRealized' });
    const page = await freshPage();
    await passkeySignIn(page, `${cx.host.url}/inquiries/${est.body.exposureKey}`);
    await page.getByText('You can close this page and return to Lantern Notes.').waitFor();
    await shootBothLocales(page, '07-poll-done');
    await page.close();
    const polled = await poll();
    expect(polled.body.state).toBe('realized');
    expect((await redeem(keysOf(est), polled.body.confirmationKey)).status).toBe(200);
  });

  test('STATUS_POLL and REVEAL inquiries warn before sign-in, in both languages', async () => {
    for (const [type, shot] of [
      ['STATUS_POLL', '12-warning-status-poll'],
      ['REVEAL', '13-warning-reveal'],
    ] as const) {
      const est = await backend.establish({ returnMethods: [{ type }] });
      const url = `${cx.host.url}/inquiries/${est.body.exposureKey}`;
      const page = await context.newPage();
      await page.goto(url);
      await page.getByRole('heading', { name: 'Did you start this sign-in yourself?' }).waitFor();
      expect(await page.textContent('.warning')).toContain(
        'Signing in gives Lantern Notes access to your account on the device where this sign-in was started',
      );
      await shootBothLocales(page, shot);
      await page.goto(`${url}?lang=zh-CN`);
      expect(await page.textContent('.warning')).toContain(
        '“灯笼笔记”将在发起此次登录的设备上获得访问您账户的权限',
      );
      await page.goto(`${url}?lang=en-US`);
      await page.close();
    }
  });

  test('attack: a flow cookie planted in the victim’s browser is worthless once the victim signs in', async () => {
    const callbackUrl = `http://localhost:${callbackPort}/cb`;
    const est = await backend.establish({ returnMethods: [{ type: 'CALLBACK', payload: { callbackUrl } }] });
    const path = `/inquiries/${est.body.exposureKey}`;
    // The attacker opens the sign-in page and keeps the flow cookie the host issued...
    const attacker = makeAgent(cx.host.url);
    await attacker.request(path);
    const kept = attacker.cookie('connect_flow')!;
    expect(kept).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // ...and plants it in the victim's browser (as a sibling subdomain or a plain-HTTP hop could).
    const victim = await browser.newContext({ locale: 'en-US' });
    victim.setDefaultTimeout(PAGE_STEP_CEILING_MS);
    await victim.addCookies([{ name: 'connect_flow', value: kept, url: cx.host.url }]);
    const page = await victim.newPage();
    const authenticator = await addAuthenticator(victim, page, credentials);
    await passkeySignIn(page, `${cx.host.url}${path}`);
    await page.waitForURL((u) => u.port === String(callbackPort), { timeout: 60_000 });
    expect(new URL(page.url()).searchParams.get('confirmationKey')).toMatch(/^iqc_/);
    credentials = await authenticator.credentials();
    const now = (await victim.cookies(cx.host.url)).find((c) => c.name === 'connect_flow')!;
    expect(now.value).not.toBe(kept);
    await victim.close();
    // The attacker replays the kept cookie: no redirect to the callback, no confirmation key.
    const replay = await attacker.request(path);
    expect(replay.res.status).toBe(410);
    expect(replay.res.headers.get('location')).toBeNull();
    expect(replay.text).not.toContain('iqc_');
  });

  test('realize constraints are enforced on the realized identity and on sign-up', async () => {
    const est = await backend.establish({
      realizeConstraints: [{ constraintType: 'EMAIL', payload: { allowedEmails: ['*@other.test'] } }],
      returnMethods: [{ type: 'REVEAL' }],
    });
    const page = await freshPage();
    await passkeySignIn(page, `${cx.host.url}/inquiries/${est.body.exposureKey}`);
    await page.getByText('Lantern Notes does not accept this account.').waitFor();
    await shootBothLocales(page, '08-constraint-mismatch');
    await page.getByRole('button', { name: 'Use another account' }).click();
    // Someone else signs up on this device: they do not pick the device's passkey from the email field's autofill
    // (the virtual authenticator would pick it at once when the field is focused), so it is out of the way meanwhile.
    const authenticator = authenticators.get(page)!;
    const held = await authenticator.credentials();
    for (const c of held) await authenticator.remove(c.credentialId);
    await page.getByLabel('Email address').fill(`${uniqueName('x')}@example.test`);
    await page.getByRole('button', { name: 'Send me a code' }).click();
    await page.locator('.notice', { hasText: 'cannot be used to sign in to Lantern Notes' }).waitFor();
    for (const c of held) await authenticator.add(c);
    await page.close();
    const poll = await postJson(`${cx.host.url}/inquiries/${est.body.exposureKey}/status`, {
      hiddenKey: est.body.hiddenKey,
    });
    expect(poll.body.state).toBe('established');
  });

  test('an errand completed in the browser lets the blocked issuance succeed', async () => {
    const other = await provisionBackend(cx.infra, cx.host.url, {
      claims: { firstName: 'REQUIRED', lastName: 'REQUIRED', staticAvatar: 'OPTIONAL' },
      names: { 'en-US': 'Kite Mail', 'zh-CN': '风筝邮件' },
    });
    const account = await cx.infra.db.account.findUniqueOrThrow({ where: { email } });
    const application = (await createApplicationsStore(cx.infra.db).loadApplication({
      anchor: other.fixture.anchor,
    }))!;
    const attempt = () =>
      issueSession(cx.host.deps.issuance, {
        application,
        principal: { kind: 'ACCOUNT', accountId: account.id },
        authMethod: 'PASSKEY_USERNAMELESS',
      });
    const blocked = await attempt().catch(
      (e: { reason: string; extra: { errand: { url: string; errandKey: string } } }) => e,
    );
    expect('reason' in blocked && blocked.reason).toBe('ClaimConsentRequired');
    const errand = (blocked as { extra: { errand: { url: string; errandKey: string } } }).extra.errand;
    const status = () => fetch(`${cx.host.url}/errands/${errand.errandKey}/status`).then((r) => r.json());
    expect((await status()).state).toBe('pending');

    const page = await freshPage();
    await page.goto(errand.url);
    await page.getByRole('heading', { name: 'Confirm it is you' }).waitFor();
    await shootBothLocales(page, '09-errand-reauth');
    await passkeySignIn(page, errand.url);
    await page.getByRole('heading', { name: 'What Kite Mail can see' }).waitFor();
    await shootBothLocales(page, '10-errand-details');
    await page.locator('input[name="consent_firstName"][value="GRANTED"]').check();
    await page.locator('input[name="consent_lastName"][value="GRANTED"]').check();
    await page.locator('input[name="consent_staticAvatar"][value="DENIED"]').check();
    await page.locator('#value_lastName').fill('Lovelace');
    await page.getByRole('button', { name: 'Save and continue' }).click();
    await page.getByRole('heading', { name: 'All done' }).waitFor();
    await shootBothLocales(page, '11-errand-done');
    expect((await status()).state).toBe('completed');
    // Single use: the errand link does not open again in another browser flow.
    const reopened = await fetch(errand.url);
    expect(reopened.status).toBe(410);
    await page.close();

    const issued = await attempt();
    expect(issued.claims.firstName).toEqual({ requirement: 'REQUIRED', state: 'GRANTED' });
    expect(issued.claims.lastName).toEqual({ requirement: 'REQUIRED', state: 'GRANTED' });
  });
});
