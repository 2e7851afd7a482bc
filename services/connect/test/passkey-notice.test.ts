// Issue 17.3 in Chromium: a passkey added to an existing account through an emailed code mails its owner (in the
// owner's language, or both when unknown) when, from which browser, and the account page link; a first sign-up
// sends no notice; a notice the mail server refuses leaves the account without the new passkey.
import {
  type Backend,
  PAGE_STEP_CEILING_MS,
  provisionAccount,
  provisionBackend,
  uniqueName,
} from '@svc/testkit';
import type { Browser, Page } from 'playwright-core';
import { addAuthenticator, launchChromium } from './browser-kit';
import { type ConnectHost, startConnect, useConnectHost } from './helpers';
import { codeAfter, mailCount, mailsTo, waitForMail } from './mail-kit';

const cx = useConnectHost({ hostname: 'localhost' });

jest.setTimeout(120_000);

let browser: Browser;
let backend: Backend;

beforeAll(async () => {
  backend = await provisionBackend(cx.infra, cx.host.url, {
    names: { 'en-US': 'Notice Test', 'zh-CN': '通知测试' },
  });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

const NOTICE = /passkey was added|添加了新的通行密钥/;

/** Signs up or in by emailed code on a fresh inquiry page in its own browser context, then creates a passkey. */
async function passkeyByCode(
  email: string,
  locale: 'en-US' | 'zh-CN',
  h: ConnectHost = cx.host,
): Promise<Page> {
  const est = await backend.establish({ returnMethods: [{ type: 'REVEAL' }] }, { url: h.url });
  expect(est.status).toBe(200);
  const context = await browser.newContext({ locale });
  context.setDefaultTimeout(PAGE_STEP_CEILING_MS);
  const page = await context.newPage();
  await addAuthenticator(context, page);
  await page.goto(`${h.url}/inquiries/${est.body.exposureKey}?lang=${locale}`);
  const seen = mailCount(cx.mailbox, email);
  await page.locator('#email').fill(email);
  await page.locator('form[action$="/email"] button').click();
  await page.locator('#code').waitFor();
  await page.locator('#code').fill(await codeAfter(cx.mailbox, email, seen));
  await page.locator('form[action$="/email/code"] button').click();
  await page.locator('[data-passkey="register"]').click();
  return page;
}

test('a passkey added by code to an account without a known language: one notice in both languages', async () => {
  const { id, email } = await provisionAccount(cx.infra);
  const page = await passkeyByCode(email, 'en-US');
  const mail = await waitForMail(cx.mailbox, email, NOTICE);
  await page.context().close();
  expect(mail.subject).toBe('A passkey was added to your account / 您的账户添加了新的通行密钥');
  expect(mail.text).toContain(`${cx.host.url}/account`);
  expect(mail.text).toMatch(/from Chrome \(headless\) \d+ on Linux/);
  expect(mail.text).toContain('Linux 上的 Chrome (headless)');
  expect(mail.text).toMatch(/\d{4}.*\(UTC\)/);
  const passkeys = await cx.infra.db.passkey.findMany({ where: { accountId: id } });
  expect(passkeys).toHaveLength(1);
  expect(passkeys[0]?.name).toMatch(/^Chrome \(headless\) \d+ · Linux$/);
  expect(mailsTo(cx.mailbox, email, NOTICE)).toHaveLength(1);
});

test('sign-up sends no notice; a second passkey by code is told in the language of sign-up (zh-CN)', async () => {
  const email = `${uniqueName('zh')}@example.test`;
  const first = await passkeyByCode(email, 'zh-CN');
  await first
    .getByRole('heading', { level: 1, name: '基本条款' })
    .or(first.locator('#confirmation-key'))
    .first()
    .waitFor();
  await first.context().close();
  const account = await cx.infra.db.account.findUniqueOrThrow({ where: { email } });
  expect(account.locale).toBe('zh-CN');
  expect(mailsTo(cx.mailbox, email, NOTICE)).toHaveLength(0);

  // Someone who reads the mailbox adds a passkey from an English browser: the owner is told in Chinese.
  const second = await passkeyByCode(email, 'en-US');
  const mail = await waitForMail(cx.mailbox, email, NOTICE);
  await second.context().close();
  expect(mail.subject).toBe('您的账户添加了新的通行密钥');
  expect(mail.text).toContain('Linux 上的 Chrome (headless)');
  expect(mail.text).toContain(`${cx.host.url}/account`);
  expect(mail.text).not.toContain('If it was not you');
  expect(await cx.infra.db.passkey.count({ where: { accountId: account.id } })).toBe(2);
});

test('when the notice cannot be sent, the passkey is not added', async () => {
  const { id, email } = await provisionAccount(cx.infra);
  // A replica whose mail server refuses connections, over the same PostgreSQL and Redis. Cookies ignore the port,
  // so the flow proven by code on the working host carries over to the broken one for the passkey ceremony.
  const broken = await startConnect(cx.infra, { hostname: 'localhost', smtpPort: 1 });
  try {
    const est = await backend.establish({ returnMethods: [{ type: 'REVEAL' }] });
    const context = await browser.newContext({ locale: 'en-US' });
    context.setDefaultTimeout(PAGE_STEP_CEILING_MS);
    const page = await context.newPage();
    await addAuthenticator(context, page);
    await page.goto(`${cx.host.url}/inquiries/${est.body.exposureKey}`);
    await page.locator('#email').fill(email);
    await page.locator('form[action$="/email"] button').click();
    await page.locator('#code').fill(await cx.mailbox.codeFor(email));
    await page.locator('form[action$="/email/code"] button').click();
    await page.locator('[data-passkey="register"]').waitFor();
    await page.goto(`${broken.url}/inquiries/${est.body.exposureKey}`);
    const verify = page.waitForResponse((r) => r.url().endsWith('/passkey/registration'));
    await page.locator('[data-passkey="register"]').click();
    expect((await verify).status()).toBe(503);
    await page.locator('[data-passkey-status]:not(:empty)').waitFor();
    await context.close();
  } finally {
    await broken.close();
  }
  expect(await cx.infra.db.passkey.count({ where: { accountId: id } })).toBe(0);
  expect(mailsTo(cx.mailbox, email, NOTICE)).toHaveLength(0);
});
