// Issue 40 on the OIDC host's interaction pages, in Chromium with a virtual authenticator: the returning person,
// passkey autofill, resend and the stated code lifetime (7 minutes from EMAIL_CODE_TTL_SECONDS, not the default 10),
// keyboard-only sign-up and axe in both languages (libs/testkit's signinPageTests).
import { launchChromium, type Mailbox, signinPageTests, startMailbox, uniqueName } from '@svc/testkit';
import type { Browser, Page } from 'playwright-core';
import { ARTIFACTS } from './chromium-kit';
import { authorizeRequestUrl, type OidcPagesHost, provisionRelyingParty, startOidcPages } from './pages-kit';

jest.setTimeout(180_000);

let mailbox: Mailbox;
let oidc: OidcPagesHost;
let browser: Browser;
let rp: Awaited<ReturnType<typeof provisionRelyingParty>>;

beforeAll(async () => {
  mailbox = await startMailbox();
  oidc = await startOidcPages({
    smtpPort: mailbox.port,
    env: { EMAIL_CODE_TTL_SECONDS: '420', EMAIL_CODE_RESEND_SECONDS: '40', RL_SIGN_IN_PER_IP: '1000' },
  });
  rp = await provisionRelyingParty(oidc, {
    redirectUris: [`https://${uniqueName('rp')}.example/cb`],
    names: { 'en-US': 'Lantern Notes', 'zh-CN': '灯笼笔记' },
  });
  browser = await launchChromium(ARTIFACTS);
});

afterAll(async () => {
  await browser?.close();
  await oidc?.close();
  await mailbox?.close();
});

signinPageTests(() => ({
  browser,
  mailbox,
  artifacts: ARTIFACTS,
  prefix: 'issue40',
  host: 'oidc',
  lifetime: { 'en-US': '7 minutes', 'zh-CN': '7分钟' },
  async open(page: Page) {
    await page.goto(authorizeRequestUrl(oidc.url, rp, { state: uniqueName('s') }));
    await page.locator('#email').waitFor();
  },
}));
