// Issue 40 on connect's inquiry pages, in Chromium with a virtual authenticator: the returning person, passkey
// autofill, resend and the stated code lifetime (7 minutes, not the default 10), keyboard-only sign-up and axe;
// and the resend gap held across two replicas by one atomic count in Redis.
import {
  type Backend,
  mailsTo,
  makeAgent,
  provisionBackend,
  signinPageTests,
  uniqueName,
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

signinPageTests(() => ({
  browser,
  mailbox: cx.mailbox,
  artifacts: ARTIFACTS,
  prefix: 'issue40',
  host: 'connect',
  lifetime: { 'en-US': '7 minutes', 'zh-CN': '7分钟' },
  async open(page: Page) {
    const est = await backend.establish({ returnMethods: [{ type: 'REVEAL' }] });
    expect(est.status).toBe(200);
    await page.goto(`${cx.host.url}/inquiries/${est.body.exposureKey}?lang=en-US`);
  },
}));

test('codes asked for at once on two replicas: one mail, the others refused on the page (one count in Redis)', async () => {
  const replica = await startConnect(cx.infra, { hostname: 'localhost', smtpPort: cx.mailbox.port, config });
  try {
    const est = await backend.establish({ returnMethods: [{ type: 'REVEAL' }] });
    const path = `/inquiries/${est.body.exposureKey}`;
    const a = makeAgent(cx.host.url);
    await a.request(path);
    const b = makeAgent(replica.url);
    for (const name of ['connect_flow']) b.plant(name, a.cookie(name) ?? '');
    b.csrf = a.csrf;
    const email = `${uniqueName('twice')}@example.test`;
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => (i % 2 ? b : a).form(`${path}/email`, { email })),
    );
    expect(answers.map((r) => r.res.status)).toEqual(Array(8).fill(303));
    const page = await a.request(path);
    // Every post went back to the page; exactly one code was mailed.
    expect(mailsTo(cx.mailbox, email)).toHaveLength(1);
    expect(page.text).toContain('name="code"');
    // Asked again from the code page at once: refused, visibly, and still one mail.
    await a.form(`${path}/email/resend`, {});
    const refused = await a.request(path);
    expect(refused.text).toMatch(/You cannot get a new code yet\. Try again in \d+ seconds?\./);
    expect(mailsTo(cx.mailbox, email)).toHaveLength(1);
    // A resend without a pending code (a forged post) mails nothing; one without the CSRF token is refused.
    const c = makeAgent(cx.host.url);
    await c.request(path);
    expect((await c.form(`${path}/email/resend`, {})).res.status).toBe(303);
    expect((await c.form(`${path}/email/resend`, { _csrf: 'forged' })).res.status).toBe(403);
    expect((await c.form(`${path}/email/sign-in`, {})).res.status).toBe(303);
    expect((await c.request(path)).text).toContain('name="email"');
  } finally {
    await replica.close();
  }
});
