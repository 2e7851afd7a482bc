// Issue 40 on the device host's approval pages, in Chromium with a virtual authenticator: the returning person,
// passkey autofill, resend and the stated code lifetime (7 minutes from EMAIL_CODE_TTL_SECONDS, not the default 10),
// keyboard-only sign-up and axe in both languages (libs/testkit's signinPageTests); and the flow's own pages: "Did
// you start this sign-in yourself?" once per flow, and the application's name in the approved page's heading.
import {
  askForCode,
  enterCode,
  launchChromium,
  nthCode,
  PAGE_STEP_CEILING_MS,
  pageWithAuthenticator,
  postJson,
  seriousAxeViolations,
  shootAndCheck,
  signinPageTests,
  submitForm,
  uniqueName,
} from '@svc/testkit';
import type { Browser, Page } from 'playwright-core';
import { ARTIFACTS, ensureTerms, type PageHarness, startPages } from './page-kit';
import { provisionDeviceApp } from './support';

jest.setTimeout(180_000);

let h: PageHarness;
let browser: Browser;

beforeAll(async () => {
  h = await startPages({ perAddress: 1000, perAccount: 1000 }, 1000, {
    EMAIL_CODE_TTL_SECONDS: '420',
    EMAIL_CODE_RESEND_SECONDS: '40',
    RL_SIGN_IN_PER_IP: '1000',
    RL_CODE_SEND_PER_IP: '1000',
    RL_CODE_VERIFY_PER_IP: '1000',
  });
  await ensureTerms(h);
  browser = await launchChromium(ARTIFACTS);
});

afterAll(async () => {
  await browser?.close();
  await h?.close();
});

/** A device application and one pending authorization; its user code. */
async function startDeviceFlow(): Promise<string> {
  const app = await provisionDeviceApp(h.infra, {
    claims: { email: 'REQUIRED', firstName: 'OPTIONAL' },
    names: { 'en-US': 'Lantern TV', 'zh-CN': '灯笼电视' },
  });
  const res = await postJson(`${h.url}/device-authorize`, { applicationAnchor: app.anchor });
  expect(res.status).toBe(200);
  return (res.body as { userCode: string }).userCode;
}

/** Enters a fresh device flow's code on the page and waits for the step after it. */
async function openDevicePage(page: Page, lang: 'en-US' | 'zh-CN' = 'en-US'): Promise<void> {
  const userCode = await startDeviceFlow();
  await page.goto(`${h.url}/device?user_code=${userCode}&lang=${lang}`);
  await submitForm(page, lang === 'en-US' ? 'Continue' : '继续');
}

signinPageTests(() => ({
  browser,
  mailbox: h.mailbox,
  artifacts: ARTIFACTS,
  prefix: 'issue40',
  host: 'device',
  lifetime: { 'en-US': '7 minutes', 'zh-CN': '7分钟' },
  async open(page: Page) {
    await openDevicePage(page);
    await page.locator('#email').waitFor();
  },
}));

test('"Did you start this sign-in yourself?" shows once per flow; the approved page names the application, in both languages', async () => {
  const WARNING = 'Did you start this sign-in yourself?';
  const context = await browser.newContext({ locale: 'en-US' });
  context.setDefaultTimeout(PAGE_STEP_CEILING_MS);
  try {
    const { page } = await pageWithAuthenticator(context);
    // Every page of the flow passes axe in both languages (screenshots under test-artifacts/device/issue40-*).
    const found: string[] = [];
    await page.goto(`${h.url}/device?lang=en-US`);
    found.push(...(await shootAndCheck(page, ARTIFACTS, 'issue40-00-code-entry')));
    await openDevicePage(page);
    expect(await page.textContent('main')).toContain(WARNING);
    const email = `${uniqueName('tv')}@example.test`;
    await askForCode(page, email);
    expect(await page.textContent('main')).not.toContain(WARNING);
    await enterCode(page, await nthCode(h.mailbox, email, 0));
    await page.getByRole('button', { name: 'Create a passkey' }).waitFor();
    expect(await page.textContent('main')).not.toContain(WARNING);
    await page.getByRole('button', { name: 'Create a passkey' }).click();
    await page.getByLabel('I have read and accept the basic terms').waitFor();
    found.push(...(await shootAndCheck(page, ARTIFACTS, 'issue40-09-terms')));
    await page.getByLabel('I have read and accept the basic terms').check();
    await submitForm(page, 'Accept and continue');
    found.push(...(await shootAndCheck(page, ARTIFACTS, 'issue40-10-consent')));
    await page.locator('input[name="consent_email"][value="GRANTED"]').check();
    await page.locator('input[name="consent_firstName"][value="DENIED"]').check();
    await submitForm(page, 'Save and continue');
    expect(await page.textContent('main')).not.toContain(WARNING);
    found.push(...(await shootAndCheck(page, ARTIFACTS, 'issue40-11-confirm')));
    expect(found).toEqual([]);
    await submitForm(page, 'Approve');
    expect(await page.textContent('h1')).toBe('Device approved for Lantern TV');
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.screenshot({ path: `${ARTIFACTS}/issue40-08-approved.en-US.png`, fullPage: true });
    // Another device, approved in Chinese by the same person, still signed in (each flow here is a new application,
    // so its consent is asked).
    await openDevicePage(page, 'zh-CN');
    await page.locator('input[name="consent_email"][value="GRANTED"]').check();
    await page.locator('input[name="consent_firstName"][value="DENIED"]').check();
    await submitForm(page, '保存并继续');
    await submitForm(page, '批准');
    expect(await page.textContent('h1')).toBe('“灯笼电视”的设备已批准');
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.screenshot({ path: `${ARTIFACTS}/issue40-08-approved.zh-CN.png`, fullPage: true });
  } finally {
    await context.close();
  }
});
