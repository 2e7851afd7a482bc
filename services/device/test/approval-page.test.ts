// The approval page in headless Chromium with the CDP virtual authenticator: a person who signed up on connect
// approves a device with the same passkey (typing the code in lower case without its hyphen); a newcomer signs up
// on the device page itself (in zh-CN); denial is final; user-code guesses are limited per client address and per
// signed-in account, malformed entries included; a forged passkey call is refused before its malformed body;
// `pnpm device-login` approved through the page. Every page is screenshotted in both languages.
import { spawn } from 'node:child_process';
import path from 'node:path';
import {
  addAuthenticator,
  expectForgedCallsRefusedFirst,
  makeAgent,
  PAGE_STEP_CEILING_MS,
  postJson,
  provisionBackend,
  signUpByEmailCode,
  uniqueName,
  waitUntil,
} from '@svc/testkit';
import type { BrowserContext, Page } from 'playwright-core';

import { ARTIFACTS, type PageHarness, shoot, startPages, useChromiumPages } from './page-kit';
import { provisionDeviceApp } from './support';

jest.setTimeout(120_000);

const ui = useChromiumPages({ terms: true, artifacts: ARTIFACTS });

const TV = 'LanternTV/2.1 (Linux; armv7l)';

/** A device application and one pending authorization started from a "TV" with its own User-Agent. */
async function startDeviceFlow(harness: PageHarness, names = { 'en-US': 'Lantern TV', 'zh-CN': '灯笼电视' }) {
  const app = await provisionDeviceApp(harness.infra, {
    claims: { email: 'REQUIRED', firstName: 'OPTIONAL' },
    names,
  });
  const res = await postJson(
    `${harness.url}/device-authorize`,
    { applicationAnchor: app.anchor },
    { 'user-agent': TV },
  );
  expect(res.status).toBe(200);
  return { app, ...(res.body as { deviceCode: string; userCode: string; verificationUriComplete: string }) };
}

const poll = (harness: PageHarness, deviceCode: string) =>
  postJson(`${harness.url}/device-token`, { deviceCode });

async function newPage(locale: 'en-US' | 'zh-CN'): Promise<{ context: BrowserContext; page: Page }> {
  const context = await ui.browser.newContext({ locale });
  context.setDefaultTimeout(PAGE_STEP_CEILING_MS);
  const page = await context.newPage();
  return { context, page };
}

/** Screenshots both locales (which ends on en-US), then returns the page to zh-CN. */
async function shootStayingZh(page: Page, name: string): Promise<void> {
  await shoot(page, name);
  const url = new URL(page.url());
  url.searchParams.set('lang', 'zh-CN');
  await page.goto(url.toString());
}

/**
 * Types a code and submits it; resolves once the answer's page has loaded, so what the caller reads next is that
 * page, never the one it left (which may show the previous entry's notice).
 */
async function typeCode(page: Page, typed: string, button = 'Continue'): Promise<void> {
  await page.locator('#user-code').fill(typed);
  await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: button }).click()]);
}

/** Signs up on connect (in English): email code, passkey, basic terms, until connect says they are signed in. */
async function signUpOnConnect(page: Page, email: string, harness = ui.h): Promise<void> {
  // Any connect inquiry page offers sign-up; the passkey it makes is the person's, for the whole fleet.
  const backend = await provisionBackend(harness.infra, harness.connect.url, {
    names: { 'en-US': 'Lantern Notes' },
  });
  const est = await backend.establish({ returnMethods: [{ type: 'REVEAL', payload: {} }] });
  expect(est.status).toBe(200);
  await page.goto(`${harness.connect.url}/inquiries/${est.body.exposureKey}?lang=en-US`);
  await signUpByEmailCode(page, email, harness.mailbox.codeFor);
  await page.getByLabel('I have read and accept the basic terms').check();
  await page.getByRole('button', { name: 'Accept and continue' }).click();
  await page.getByRole('heading', { name: 'You are signed in' }).waitFor();
}

async function acceptTermsAndConsent(page: Page, labels: { accept: string; go: string; save: string }) {
  await page.getByLabel(labels.accept).check();
  await page.getByRole('button', { name: labels.go }).click();
  await page.locator('input[name="consent_email"][value="GRANTED"]').check();
  await page.locator('input[name="consent_firstName"][value="DENIED"]').check();
  await page.getByRole('button', { name: labels.save }).click();
}

describe('the approval page', () => {
  test('a person who signed up on connect approves a device with the same passkey (code typed lower case, no hyphen)', async () => {
    const { context, page } = await newPage('en-US');
    const authenticator = await addAuthenticator(context, page);
    const email = `${uniqueName('tv')}@example.test`;
    await signUpOnConnect(page, email);
    expect(await authenticator.credentials()).toHaveLength(1);

    const flow = await startDeviceFlow(ui.h);
    await page.goto(`${ui.h.url}/device`);
    expect(await page.textContent('h1')).toBe('Connect a device');
    await shoot(page, '01-code-entry');
    await typeCode(page, 'wdjb mjht-x');
    expect(await page.textContent('.notice')).toContain('not a device code');
    // The notice shows once: each language gets its own malformed entry.
    await page.screenshot({ path: `${ARTIFACTS}/02-code-malformed.en-US.png`, fullPage: true });
    await page.goto(`${ui.h.url}/device?lang=zh-CN`);
    await typeCode(page, 'wdjb mjht-x', '继续');
    expect(await page.textContent('.notice')).toContain('这不是设备代码');
    await page.screenshot({ path: `${ARTIFACTS}/02-code-malformed.zh-CN.png`, fullPage: true });
    await page.goto(`${ui.h.url}/device?lang=en-US`);
    await typeCode(page, 'BBBBBBBB');
    expect(await page.textContent('.notice')).toContain('not valid');
    await typeCode(page, flow.userCode.toLowerCase().replace('-', ''));

    await page.getByRole('button', { name: 'Sign in with a passkey' }).waitFor();
    expect(await page.textContent('h1')).toBe('Sign in to Lantern TV');
    expect(await page.textContent('main')).toContain('Did you start this sign-in yourself?');
    await shoot(page, '03-sign-in');
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    // The account made on connect: terms accepted there; consent is per application, so it is asked here.
    await page.getByRole('heading', { name: 'What Lantern TV can see' }).waitFor();
    await shoot(page, '04-consent');
    await page.locator('input[name="consent_email"][value="GRANTED"]').check();
    await page.locator('input[name="consent_firstName"][value="DENIED"]').check();
    await page.getByRole('button', { name: 'Save and continue' }).click();

    await page.getByRole('heading', { name: 'Sign in on this device?' }).waitFor();
    expect(await page.textContent('[data-user-code]')).toBe(flow.userCode);
    expect(await page.textContent('[data-device-agent]')).toBe(TV);
    expect(await page.textContent('[data-device-address]')).toMatch(/127\.0\.0\.1/);
    expect(await page.textContent('main')).toContain('Only continue if you started this on your own device');
    expect(await page.textContent('main')).toContain(`You are signed in as ${email}.`);
    await shoot(page, '05-confirm');
    // Nothing is decided by looking: the device is still waiting (read from the database, so the device's one
    // poll below is its first and is never throttled).
    const pending = await ui.h.infra.db.deviceAuthorization.findFirstOrThrow({
      where: { userCode: flow.userCode, state: 'PENDING' },
    });
    expect(pending.state).toBe('PENDING');

    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('heading', { name: 'Device approved' }).waitFor();
    await page.screenshot({ path: `${ARTIFACTS}/06-approved.en-US.png`, fullPage: true });

    const tokens = await poll(ui.h, flow.deviceCode);
    expect(tokens.status).toBe(200);
    expect(tokens.body.applicationAnchor).toBe(flow.app.anchor);
    expect(tokens.body.claims.email).toEqual({ requirement: 'REQUIRED', state: 'GRANTED' });
    const account = await ui.h.infra.db.account.findUniqueOrThrow({ where: { email } });
    expect(await ui.h.infra.db.passkey.count({ where: { accountId: account.id } })).toBe(1);
    await context.close();
  });

  test('the passkey button stays disabled until the page script has bound it (a click before would do nothing)', async () => {
    const { context, page } = await newPage('en-US');
    const flow = await startDeviceFlow(ui.h);
    let release = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    await page.route('**/assets/signin.js', async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(`${ui.h.url}/device?user_code=${flow.userCode}`);
    // Not typeCode: the sign-in page cannot finish loading while its script is held back.
    await page.getByRole('button', { name: 'Continue' }).click();
    const button = page.getByRole('button', { name: 'Sign in with a passkey' });
    await button.waitFor();
    expect(await button.isDisabled()).toBe(true);
    release();
    await page.locator('[data-passkey="authenticate"]:enabled').waitFor();
    await context.close();
  });

  test('verificationUriComplete fills in the code, and the confirmation screen is still shown before anything is decided', async () => {
    const { context, page } = await newPage('en-US');
    await addAuthenticator(context, page);
    const email = `${uniqueName('link')}@example.test`;
    await signUpOnConnect(page, email);
    const flow = await startDeviceFlow(ui.h);
    await page.goto(flow.verificationUriComplete);
    expect(await page.inputValue('#user-code')).toBe(flow.userCode);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.locator('input[name="consent_email"][value="GRANTED"]').check();
    await page.locator('input[name="consent_firstName"][value="GRANTED"]').check();
    await page.getByRole('button', { name: 'Save and continue' }).click();
    await page.getByRole('heading', { name: 'Sign in on this device?' }).waitFor();
    // Opening the complete URI again while signed in still lands on the confirmation screen, never an approval.
    await page.goto(flow.verificationUriComplete);
    await page.getByRole('heading', { name: 'Sign in on this device?' }).waitFor();
    expect((await poll(ui.h, flow.deviceCode)).body).toEqual({ error: 'authorization_pending' });
    await context.close();
  });

  test('a newcomer signs up on the device page itself (zh-CN): email code, passkey, terms, consent, approve', async () => {
    const { context, page } = await newPage('zh-CN');
    const authenticator = await addAuthenticator(context, page);
    const flow = await startDeviceFlow(ui.h);
    await page.goto(`${ui.h.url}/device?lang=zh-CN`);
    await typeCode(page, flow.userCode, '继续');
    await page.getByRole('heading', { name: '登录“灯笼电视”' }).waitFor();
    const email = `${uniqueName('new')}@example.test`;
    await page.getByLabel('电子邮箱地址').fill(email);
    await page.getByRole('button', { name: '发送验证码' }).click();
    await page.getByLabel('验证码').waitFor();
    await shootStayingZh(page, '07-email-code');
    await page.getByLabel('验证码').fill(await ui.h.mailbox.codeFor(email));
    await page.getByRole('button', { name: '继续' }).click();
    await page.getByRole('button', { name: '创建通行密钥' }).waitFor();
    await shootStayingZh(page, '08-register-passkey');
    await page.getByRole('button', { name: '创建通行密钥' }).click();
    await page.getByRole('heading', { level: 1, name: '基本条款', exact: true }).waitFor();
    await shootStayingZh(page, '09-terms');
    await acceptTermsAndConsent(page, {
      accept: '我已阅读并接受基本条款',
      go: '接受并继续',
      save: '保存并继续',
    });
    await page.getByRole('heading', { name: '要在此设备上登录吗？' }).waitFor();
    expect(await page.textContent('[data-user-code]')).toBe(flow.userCode);
    await page.getByRole('button', { name: '批准' }).click();
    await page.getByRole('heading', { name: '设备已批准' }).waitFor();
    await page.screenshot({ path: `${ARTIFACTS}/06-approved.zh-CN.png`, fullPage: true });
    expect(await authenticator.credentials()).toHaveLength(1);
    const tokens = await poll(ui.h, flow.deviceCode);
    expect(tokens.status).toBe(200);
    const account = await ui.h.infra.db.account.findUniqueOrThrow({ where: { email } });
    expect(account.emailVerified).toBe(true);
    await context.close();
  });

  for (const locale of ['en-US', 'zh-CN'] as const) {
    test(`deny is final (${locale}): the device gets access_denied and the code no longer works`, async () => {
      const { context, page } = await newPage(locale);
      await addAuthenticator(context, page);
      const en = locale === 'en-US';
      const email = `${uniqueName('deny')}@example.test`;
      await signUpOnConnect(page, email);
      const flow = await startDeviceFlow(ui.h);
      await page.goto(`${ui.h.url}/device?lang=${locale}`);
      await typeCode(page, flow.userCode, en ? 'Continue' : '继续');
      await page.getByRole('button', { name: en ? 'Sign in with a passkey' : '使用通行密钥登录' }).click();
      await page.locator('input[name="consent_email"][value="GRANTED"]').check();
      await page.locator('input[name="consent_firstName"][value="DENIED"]').check();
      await page.getByRole('button', { name: en ? 'Save and continue' : '保存并继续' }).click();
      await page.getByRole('button', { name: en ? 'Deny' : '拒绝' }).click();
      await page.getByRole('heading', { name: en ? 'Request denied' : '请求已拒绝' }).waitFor();
      await page.screenshot({ path: `${ARTIFACTS}/10-denied.${locale}.png`, fullPage: true });
      expect((await poll(ui.h, flow.deviceCode)).body).toEqual({ error: 'access_denied' });
      await page.getByRole('link', { name: en ? 'Enter another code' : '输入其他代码' }).click();
      await typeCode(page, flow.userCode, en ? 'Continue' : '继续');
      expect(await page.textContent('.notice')).toContain(en ? 'not valid' : '无效');
      expect((await poll(ui.h, flow.deviceCode)).body).toEqual({ error: 'access_denied' });
      await context.close();
    });
  }
});

describe('the passkey calls of the page script', () => {
  test('a forged call (no or a wrong CSRF token, a foreign Origin) is 403 before its malformed body is 400', async () => {
    const flow = await startDeviceFlow(ui.h);
    const a = makeAgent(ui.h.url);
    await a.request('/device');
    expect((await a.form('/device', { code: flow.userCode })).res.status).toBe(303);
    expect((await a.request('/device')).text).toContain('Sign in with a passkey');
    await expectForgedCallsRefusedFirst(a, '/device', [
      'authentication-options',
      'authentication',
      'registration-options',
      'registration',
    ]);
  });
});

describe('user-code guesses (RFC 8628 section 5.1)', () => {
  test('per client address: malformed and wrong entries count, then even the right code is refused', async () => {
    const limited = await startPages({ perAddress: 4, perAccount: 100 });
    try {
      const flow = await startDeviceFlow(limited);
      const a = makeAgent(limited.url);
      await a.request('/device');
      for (const code of ['x', 'BBBB-BBBB', '12345', 'CCCC-CCCC']) {
        const { res } = await a.form('/device', { code });
        expect(res.status).toBe(303);
      }
      const refused = await a.form('/device', { code: flow.userCode });
      expect(refused.res.status).toBe(429);
      expect(refused.res.headers.get('retry-after')).toBeTruthy();
      // The window is 10 minutes: the page names the wait in whole minutes, as Retry-After does.
      const minutes = Math.ceil(Number(refused.res.headers.get('retry-after')) / 60);
      expect(refused.text).toContain(`Too many attempts. Try again in ${minutes} minutes.`);
      // The right code selected nothing: the page still asks for a code.
      expect((await a.request('/device')).text).toContain('Connect a device');
      // In the browser too, in both languages.
      const { context, page } = await newPage('en-US');
      await page.goto(`${limited.url}/device`);
      await typeCode(page, flow.userCode);
      await page.getByText('Too many attempts').waitFor();
      await page.screenshot({ path: `${ARTIFACTS}/11-too-many.en-US.png`, fullPage: true });
      await page.goto(`${limited.url}/device?lang=zh-CN`);
      await typeCode(page, flow.userCode, '继续');
      await page.getByText('尝试次数过多').waitFor();
      await page.screenshot({ path: `${ARTIFACTS}/11-too-many.zh-CN.png`, fullPage: true });
      await context.close();
      expect((await poll(limited, flow.deviceCode)).body).toEqual({ error: 'authorization_pending' });
    } finally {
      await limited.close();
    }
  });

  test('per signed-in account: its wrong guesses are counted across codes; another browser at the same address is not', async () => {
    const limited = await startPages({ perAddress: 100, perAccount: 3 });
    try {
      const { context, page } = await newPage('en-US');
      await addAuthenticator(context, page);
      await signUpOnConnect(page, `${uniqueName('guess')}@example.test`, limited);
      const first = await startDeviceFlow(limited);
      await page.goto(`${limited.url}/device`);
      await typeCode(page, first.userCode);
      await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
      await page.locator('input[name="consent_email"][value="GRANTED"]').check();
      await page.locator('input[name="consent_firstName"][value="DENIED"]').check();
      await page.getByRole('button', { name: 'Save and continue' }).click();
      await page.getByRole('button', { name: 'Use another code' }).click();
      // Signed in now: three guesses for this account...
      for (const typed of ['DDDD-DDDD', 'zz', 'EEEE-EEEE']) {
        await typeCode(page, typed);
        await page.locator('.notice').waitFor();
      }
      // ...and the fourth is refused, right or not.
      const second = await startDeviceFlow(limited);
      await typeCode(page, second.userCode);
      await page.getByText('Too many attempts').waitFor();
      await context.close();
      // Someone else at the same address, not signed in, still gets through.
      const other = await newPage('en-US');
      await other.page.goto(`${limited.url}/device`);
      await typeCode(other.page, second.userCode);
      await other.page.getByRole('button', { name: 'Sign in with a passkey' }).waitFor();
      await other.context.close();
    } finally {
      await limited.close();
    }
  });
});

describe('pnpm device-login, approved through the page', () => {
  test('the CLI shows the code; a person enters it on the page, signs in, approves; the CLI prints the claims', async () => {
    const app = await provisionDeviceApp(ui.h.infra, {
      claims: { email: 'REQUIRED' },
      names: { 'en-US': 'Lantern CLI' },
    });
    const cli = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'tools/device-login/src/main.ts',
        '--app',
        app.anchor,
        '--device-url',
        ui.h.url,
        '--no-qr',
      ],
      { cwd: path.resolve(__dirname, '../../..'), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    cli.stdout.on('data', (d) => (stdout += d));
    cli.stderr.on('data', (d) => (stderr += d));
    const exit = new Promise<number>((resolve) => cli.on('exit', (code) => resolve(code ?? -1)));
    try {
      await waitUntil(async () => /enter the code\s+[0-9A-Z]{4}-[0-9A-Z]{4}/.test(stderr), 30_000);
      const userCode = /enter the code\s+([0-9A-Z]{4}-[0-9A-Z]{4})/.exec(stderr)![1]!;
      const { context, page } = await newPage('en-US');
      await addAuthenticator(context, page);
      await signUpOnConnect(page, `${uniqueName('cli')}@example.test`);
      await page.goto(`${ui.h.url}/device?user_code=${userCode}`);
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
      await page.locator('input[name="consent_email"][value="GRANTED"]').check();
      await page.getByRole('button', { name: 'Save and continue' }).click();
      // The device the CLI runs on is the one named on the confirmation screen.
      expect(await page.textContent('[data-user-code]')).toBe(userCode);
      expect(await page.textContent('[data-device-agent]')).not.toBe('Not known');
      await page.getByRole('button', { name: 'Approve' }).click();
      await page.getByRole('heading', { name: 'Device approved' }).waitFor();
      await context.close();
      expect(await exit).toBe(0);
      const out = JSON.parse(stdout);
      expect(out.applicationAnchor).toBe(app.anchor);
      expect(out.claims.email).toEqual({ requirement: 'REQUIRED', state: 'GRANTED' });
      expect(out.accessTokenClaims.aud).toBe(app.anchor);
    } finally {
      cli.kill();
    }
  });
});
