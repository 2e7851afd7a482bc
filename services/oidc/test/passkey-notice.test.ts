// Whoever reads a person's mailbox can prove the address by emailed code on the OIDC sign-in pages and add a passkey
// of their own to that account: the owner must hear of it. In Chromium: a passkey added to an existing account
// through the interaction pages mails the owner the notice (when, which browser, connect's account page link).
import {
  addAuthenticator,
  expectOnePasskeyNotice,
  launchChromium,
  type Mailbox,
  PAGE_STEP_CEILING_MS,
  provisionAccount,
  signUpByEmailCode,
  startMailbox,
  uniqueName,
} from '@svc/testkit';
import type { Browser } from 'playwright-core';
import { authorizeRequestUrl, type OidcPagesHost, provisionRelyingParty, startOidcPages } from './pages-kit';

jest.setTimeout(120_000);

let mailbox: Mailbox;
let oidc: OidcPagesHost;
let browser: Browser;

beforeAll(async () => {
  mailbox = await startMailbox();
  oidc = await startOidcPages({ smtpPort: mailbox.port });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await oidc?.close();
  await mailbox?.close();
});

test('a passkey added to an existing account on the interaction pages mails its owner', async () => {
  const { id, email } = await provisionAccount(oidc.infra);
  const rp = await provisionRelyingParty(oidc, { redirectUris: [`https://${uniqueName('rp')}.example/cb`] });
  const context = await browser.newContext({ locale: 'en-US' });
  context.setDefaultTimeout(PAGE_STEP_CEILING_MS);
  try {
    const page = await context.newPage();
    await addAuthenticator(context, page);
    await page.goto(authorizeRequestUrl(oidc.url, rp, { state: 's' }));
    await signUpByEmailCode(page, email, mailbox.codeFor);
    await expectOnePasskeyNotice(mailbox, email, /https?:\/\/[^ ]+\/account\b/);
  } finally {
    await context.close();
  }
  expect(await oidc.infra.db.passkey.count({ where: { accountId: id } })).toBe(1);
});
