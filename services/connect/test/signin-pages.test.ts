// Issue 40 on connect's inquiry pages, in Chromium with a virtual authenticator: the returning person, passkey
// autofill, resend and the stated code lifetime (7 minutes, not the default 10), keyboard-only sign-up and axe;
// the resend gap held across two replicas by one atomic count in Redis; and recovery of a lost passkey by email code.
import {
  askForCode,
  type Backend,
  enterCode,
  expectOnePasskeyNotice,
  focusedAlert,
  leftSignIn,
  mailsTo,
  makeAgent,
  nthCode,
  PAGE_STEP_CEILING_MS,
  pageWithAuthenticator,
  provisionBackend,
  shootAndCheck,
  signinPageTests,
  uniqueName,
  waitUntil,
} from '@svc/testkit';
import type { Browser, Page } from 'playwright-core';
import { ARTIFACTS, launchChromium } from './browser-kit';
import { startConnect, useConnectHost } from './helpers';

const config = {
  emailCodeTtlSeconds: 420,
  rateLimitNamespace: uniqueName('connect-rl-pages'),
  rateLimits: {
    codeSendPerIp: 1000,
    codeSendPerRecipient: 1000,
    codeVerifyPerIp: 1000,
    signInPerIp: 1000,
    codeResendSeconds: 10,
  },
};
const cx = useConnectHost({ hostname: 'localhost', config });

jest.setTimeout(180_000);

let browser: Browser;
let backend: Backend;

beforeAll(async () => {
  backend = await provisionBackend(cx.infra, cx.host.url, {
    claims: { email: 'REQUIRED', firstName: 'OPTIONAL' },
    names: { 'en-US': 'Lantern Notes', 'zh-CN': '灯笼笔记' },
  });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

/** A fresh inquiry of the application (REVEAL), its page opened in English. */
async function openInquiry(page: Page): Promise<void> {
  const est = await backend.establish({ returnMethods: [{ type: 'REVEAL' }] });
  expect(est.status).toBe(200);
  await page.goto(`${cx.host.url}/inquiries/${est.body.exposureKey}?lang=en-US`);
}

signinPageTests(() => ({
  browser,
  mailbox: cx.mailbox,
  artifacts: ARTIFACTS,
  prefix: 'issue40',
  host: 'connect',
  lifetime: { 'en-US': '7 minutes', 'zh-CN': '7分钟' },
  open: openInquiry,
}));

test('new codes asked for at once on two replicas: one goes out, the others are refused on the page (one claim in Redis)', async () => {
  // Two replicas sharing their counters, with a one-second gap.
  const shared = {
    ...config,
    rateLimitNamespace: uniqueName('connect-rl-gap'),
    rateLimits: { ...config.rateLimits, codeResendSeconds: 1 },
  };
  const one = await startConnect(cx.infra, {
    hostname: 'localhost',
    smtpPort: cx.mailbox.port,
    config: shared,
  });
  const two = await startConnect(cx.infra, {
    hostname: 'localhost',
    smtpPort: cx.mailbox.port,
    config: shared,
  });
  try {
    const est = await backend.establish({ returnMethods: [{ type: 'REVEAL' }] });
    const path = `/inquiries/${est.body.exposureKey}`;
    const a = makeAgent(one.url);
    await a.request(path);
    const b = makeAgent(two.url);
    b.plant('connect_flow', a.cookie('connect_flow') ?? '');
    b.csrf = a.csrf;
    const email = `${uniqueName('twice')}@example.test`;
    expect((await a.form(`${path}/email`, { email })).res.status).toBe(303);
    expect(mailsTo(cx.mailbox, email)).toHaveLength(1);
    // At once: refused on the page, nothing mailed.
    await b.form(`${path}/email/resend`, {});
    expect((await b.request(path)).text).toMatch(/You cannot get a new code yet\. Try again in 1 second\./);
    expect(mailsTo(cx.mailbox, email)).toHaveLength(1);
    // Once the gap has passed, eight at once on both replicas: exactly one new code.
    const gapKey = `rl:${shared.rateLimitNamespace}:code-send-gap:${email}`;
    await waitUntil(async () => (await cx.infra.redis.exists(gapKey)) === 0);
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => (i % 2 ? b : a).form(`${path}/email/resend`, {})),
    );
    expect(answers.map((r) => r.res.status)).toEqual(Array(8).fill(303));
    await waitUntil(async () => mailsTo(cx.mailbox, email).length >= 2);
    const page = await a.request(path);
    expect(page.text).toContain('name="code"');
    expect(mailsTo(cx.mailbox, email)).toHaveLength(2);
    // A resend without a pending code (no address proven or typed) mails nothing; one without the CSRF token is
    // refused; a code sign-in without a proven address signs nobody in.
    const c = makeAgent(one.url);
    await c.request(path);
    expect((await c.form(`${path}/email/resend`, {})).res.status).toBe(303);
    expect((await c.form(`${path}/email/resend`, { _csrf: 'forged' })).res.status).toBe(403);
    expect((await c.form(`${path}/email/sign-in`, {})).res.status).toBe(303);
    expect((await c.request(path)).text).toContain('name="email"');
  } finally {
    await one.close();
    await two.close();
  }
});

test('recovery: a lost passkey replaced through the email code ("Welcome back", a new passkey), the lost one removed on the account page', async () => {
  const email = `${uniqueName('lost')}@example.test`;
  // The person signs up on a device they later lose.
  const first = await browser.newContext({ locale: 'en-US' });
  first.setDefaultTimeout(PAGE_STEP_CEILING_MS);
  const lost = await pageWithAuthenticator(first);
  await openInquiry(lost.page);
  await askForCode(lost.page, email);
  await enterCode(lost.page, await nthCode(cx.mailbox, email, 0));
  await lost.page.getByRole('button', { name: 'Create a passkey' }).click();
  await leftSignIn(lost.page);
  const [lostKey] = await lost.authenticator.credentials();
  await first.close();
  // On a new device: "I am new here" with their address, the code, then a new passkey.
  const second = await browser.newContext({ locale: 'en-US' });
  second.setDefaultTimeout(PAGE_STEP_CEILING_MS);
  try {
    const { page, authenticator } = await pageWithAuthenticator(second);
    await openInquiry(page);
    await askForCode(page, email);
    await enterCode(page, await nthCode(cx.mailbox, email, 1));
    await page.getByRole('button', { name: 'Create a new passkey' }).click();
    await leftSignIn(page);
    await expectOnePasskeyNotice(cx.mailbox, email, `${cx.host.url}/account`);
    const [newKey] = await authenticator.credentials();
    expect(newKey?.credentialId).not.toBe(lostKey?.credentialId);
    // The account page lists both; the lost one is removed.
    await page.goto(`${cx.host.url}/account`);
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.getByRole('heading', { name: 'Applications you use' }).waitFor();
    expect(await page.locator('li.passkey').count()).toBe(2);
    expect(await shootAndCheck(page, ARTIFACTS, 'issue40-08-account-two-passkeys')).toEqual([]);
    await page.locator('li.passkey').first().getByRole('button', { name: 'Remove' }).click();
    await page.getByText('The passkey is removed: it can no longer sign in').waitFor();
    expect(await page.locator('li.passkey').count()).toBe(1);
    const account = await cx.infra.db.account.findUniqueOrThrow({ where: { email } });
    const left = await cx.infra.db.passkey.findMany({ where: { accountId: account.id } });
    // CDP names a credential in base64, the store in base64url.
    expect(left.map((p) => p.credentialId)).toEqual([
      Buffer.from(newKey?.credentialId ?? '', 'base64').toString('base64url'),
    ]);
  } finally {
    await second.close();
  }
  // The lost passkey no longer signs in.
  const found = await browser.newContext({ locale: 'en-US' });
  found.setDefaultTimeout(PAGE_STEP_CEILING_MS);
  try {
    const { page } = await pageWithAuthenticator(found, lostKey ? [lostKey] : []);
    await openInquiry(page);
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.locator('[data-passkey-status]:not(:empty)').first().waitFor();
    expect(await focusedAlert(page)).toBe(
      'The passkey could not be used. Try again, or use another passkey.',
    );
  } finally {
    await found.close();
  }
});

test('a passkey prompt that timed out says so (not "cancelled"), focused, and the button tries again', async () => {
  const context = await browser.newContext({ locale: 'en-US' });
  context.setDefaultTimeout(PAGE_STEP_CEILING_MS);
  try {
    const { page } = await pageWithAuthenticator(context);
    // The service's options ask for a short timeout, and the browser's prompt outlives it (as an unanswered
    // authenticator does) before refusing: WebAuthn reports both a cancel and a timeout as NotAllowedError.
    await page.route('**/passkey/authentication-options', async (route) => {
      const answer = await route.fetch();
      await route.fulfill({ response: answer, json: { ...(await answer.json()), timeout: 200 } });
    });
    await page.addInitScript(() => {
      navigator.credentials.get = () =>
        new Promise((_, reject) =>
          setTimeout(() => reject(new DOMException('The operation timed out.', 'NotAllowedError')), 400),
        );
    });
    await openInquiry(page);
    const button = page.getByRole('button', { name: 'Sign in with a passkey' });
    await button.click();
    await page.locator('[data-passkey-status]:not(:empty)').first().waitFor();
    expect(await focusedAlert(page)).toBe(
      'The passkey request timed out before it was answered. Press the button to try again.',
    );
    expect(await button.isEnabled()).toBe(true);
    await page.screenshot({ path: `${ARTIFACTS}/issue40-07-passkey-timed-out.en-US.png`, fullPage: true });
  } finally {
    await context.close();
  }
});
