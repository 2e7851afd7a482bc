// Whoever reads a person's mailbox can prove the address by emailed code on the approval page and add a passkey of
// their own to that account: the owner must hear of it. In Chromium: a passkey added to an existing account on the
// device page mails the owner the notice (when, which browser, connect's account page link).
import {
  addAuthenticator,
  launchChromium,
  mailBodyText,
  postJson,
  provisionAccount,
  signUpByEmailCode,
  waitUntil,
} from '@svc/testkit';
import type { Browser } from 'playwright-core';
import { type PageHarness, startPages } from './page-kit';
import { provisionDeviceApp } from './support';

jest.setTimeout(120_000);

let h: PageHarness;
let browser: Browser;

beforeAll(async () => {
  h = await startPages();
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await h?.close();
});

const NOTICE = /passkey was added|添加了新的通行密钥/;
const notices = (to: string) =>
  h.mailbox.messages.filter((m) => m.to === to.toLowerCase() && NOTICE.test(mailBodyText(m.text)));

test('a passkey added to an existing account on the approval page mails its owner', async () => {
  const { id, email } = await provisionAccount(h.infra);
  const app = await provisionDeviceApp(h.infra);
  const started = await postJson(`${h.url}/device-authorize`, { applicationAnchor: app.anchor });
  expect(started.status).toBe(200);
  const context = await browser.newContext({ locale: 'en-US' });
  context.setDefaultTimeout(15_000);
  try {
    const page = await context.newPage();
    await addAuthenticator(context, page);
    await page.goto(`${h.url}/device`);
    await page.locator('#user-code').fill((started.body as { userCode: string }).userCode);
    await page.getByRole('button', { name: 'Continue' }).click();
    await signUpByEmailCode(page, email, h.mailbox.codeFor);
    await waitUntil(async () => notices(email).length > 0);
  } finally {
    await context.close();
  }
  const text = mailBodyText(notices(email)[0]!.text);
  expect(text).toContain(email);
  expect(text).toMatch(/Chrome \(headless\)/);
  expect(text).toContain(`${h.connect.url}/account`);
  expect(await h.infra.db.passkey.count({ where: { accountId: id } })).toBe(1);
  expect(notices(email)).toHaveLength(1);
});
