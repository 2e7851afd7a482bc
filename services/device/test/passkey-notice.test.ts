// Whoever reads a person's mailbox can prove the address by emailed code on the approval page and add a passkey of
// their own to that account: the owner must hear of it. In Chromium: a passkey added to an existing account on the
// device page mails the owner the notice (when, which browser, connect's account page link).
import {
  addAuthenticator,
  expectOnePasskeyNotice,
  PAGE_STEP_CEILING_MS,
  postJson,
  provisionAccount,
  signUpByEmailCode,
} from '@svc/testkit';
import { useChromiumPages } from './page-kit';
import { provisionDeviceApp } from './support';

jest.setTimeout(120_000);

const ui = useChromiumPages();

test('a passkey added to an existing account on the approval page mails its owner', async () => {
  const { id, email } = await provisionAccount(ui.h.infra);
  const app = await provisionDeviceApp(ui.h.infra);
  const started = await postJson(`${ui.h.url}/device-authorize`, { applicationAnchor: app.anchor });
  expect(started.status).toBe(200);
  const context = await ui.browser.newContext({ locale: 'en-US' });
  context.setDefaultTimeout(PAGE_STEP_CEILING_MS);
  try {
    const page = await context.newPage();
    await addAuthenticator(context, page);
    await page.goto(`${ui.h.url}/device`);
    await page.locator('#user-code').fill((started.body as { userCode: string }).userCode);
    await page.getByRole('button', { name: 'Continue' }).click();
    await signUpByEmailCode(page, email, ui.h.mailbox.codeFor);
    await expectOnePasskeyNotice(ui.h.mailbox, email, `${ui.h.connect.url}/account`);
  } finally {
    await context.close();
  }
  expect(await ui.h.infra.db.passkey.count({ where: { accountId: id } })).toBe(1);
});
