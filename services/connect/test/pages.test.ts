// Page security over plain HTTP (no browser needed): CSP, cookies, CSRF, escaping, unknown and expired links,
// rate limits on code entry and sign-in, and the errand flow for an account without a passkey (email code).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { BASELINE_TERMS, makeAgent, provisionAccount, provisionBackend, uniqueName } from '@svc/testkit';
import { sha256Hex } from '../src/domain/keys';
import {
  acceptCurrentTerms,
  type ConnectHost,
  firstNameErrand,
  startConnect,
  useConnectHost,
} from './helpers';

const cx = useConnectHost({
  config: { rateLimits: { codeSendPerIp: 20, codeSendPerRecipient: 5, codeVerifyPerIp: 4, signInPerIp: 3 } },
});

const agent = (base = cx.host.url) => makeAgent(base);

describe('inquiry pages', () => {
  test('strict CSP, no inline script or style, HttpOnly SameSite=Lax cookie, escaped application name', async () => {
    const backend = await provisionBackend(cx.infra, cx.host.url, {
      names: { 'en-US': '<script>alert(1)</script> & Co', 'zh-CN': '测试' },
    });
    const est = await backend.establish({});
    const a = agent();
    const { res, text } = await a.request(`/inquiries/${est.body.exposureKey}`);
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(text).not.toMatch(/\sstyle=|\son[a-z]+=/i);
    expect(text).not.toContain('<script>alert(1)</script>');
    expect(text).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; Co');
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('connect_flow='))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).not.toMatch(/Secure/);
    const zh = await a.request(`/inquiries/${est.body.exposureKey}?lang=zh-CN`);
    expect(zh.text).toContain('<html lang="zh-CN">');
    expect(zh.text).toContain('登录“测试”');
  });

  test('a page ignores an unknown, repeated or over-long lang: it opens in the browser language', async () => {
    const backend = await provisionBackend(cx.infra, cx.host.url);
    const est = await backend.establish({});
    const a = agent();
    const page = `/inquiries/${est.body.exposureKey}`;
    for (const lang of ['fr', 'zh-CN&lang=en-US', 'x'.repeat(100)]) {
      const { res, text } = await a.request(`${page}?lang=${lang}`);
      expect([lang, res.status, text]).toEqual([lang, 200, expect.stringContaining('<html lang="en-US">')]);
      // Nothing is remembered from a value naming no locale.
      expect(res.headers.getSetCookie().some((c) => c.startsWith('connect_lang='))).toBe(false);
    }
    // The terms page too, and a locale we have is still honoured and remembered.
    const terms = await a.request('/terms/1?lang=fr');
    expect(terms.text).toContain('<html lang="en-US">');
    const zh = await a.request(`${page}?lang=zh-CN`);
    expect([zh.res.status, zh.text]).toEqual([200, expect.stringContaining('<html lang="zh-CN">')]);
    expect(zh.res.headers.getSetCookie().some((c) => c.startsWith('connect_lang=zh-CN'))).toBe(true);
  });

  test('Secure cookies off loopback', async () => {
    const secure = await startConnect(cx.infra, { config: { secureCookies: true } });
    const backend = await provisionBackend(cx.infra, secure.url);
    const est = await backend.establish({});
    const { res } = await agent(secure.url).request(`/inquiries/${est.body.exposureKey}`);
    expect(res.headers.getSetCookie().find((c) => c.startsWith('connect_flow='))).toMatch(/Secure/);
    await secure.close();
  });

  test('CSRF: a form without the token, with another token, or from another origin changes nothing', async () => {
    const backend = await provisionBackend(cx.infra, cx.host.url);
    const est = await backend.establish({});
    const path = `/inquiries/${est.body.exposureKey}`;
    const a = agent();
    await a.request(path);
    const email = `${uniqueName('csrf')}@example.test`;
    for (const [fields, extra] of [
      [{ _csrf: '', email }, {}],
      [{ _csrf: 'x'.repeat(43), email }, {}],
      [{ email }, { origin: 'https://evil.example' }],
    ] as const) {
      const { res } = await a.form(`${path}/email`, fields, extra);
      expect(res.status).toBe(403);
    }
    expect(cx.mailbox.messages.some((m) => m.to === email)).toBe(false);
    const ok = await a.form(`${path}/email`, { email });
    expect(ok.res.status).toBe(303);
    expect(ok.res.headers.get('location')).toBe(path);
    await cx.mailbox.codeFor(email);
  });

  test('unknown, malformed, expired and completed links are plain error pages', async () => {
    const a = agent();
    expect((await a.request('/inquiries/iqe_nope')).res.status).toBe(404);
    expect((await a.request(`/inquiries/iqe_${'A'.repeat(43)}`)).res.status).toBe(404);
    const backend = await provisionBackend(cx.infra, cx.host.url);
    const est = await backend.establish({});
    await cx.infra.db.inquiry.update({
      where: { exposureKeyHash: sha256Hex(est.body.exposureKey) },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    const expired = await a.request(`/inquiries/${est.body.exposureKey}`);
    expect(expired.res.status).toBe(410);
    expect(expired.text).toContain('This link has expired.');
    expect(expired.res.headers.get('content-type')).toMatch(/text\/html/);
  });

  test('code entry is rate limited, and a code dies after five wrong guesses', async () => {
    const backend = await provisionBackend(cx.infra, cx.host.url);
    const est = await backend.establish({});
    const path = `/inquiries/${est.body.exposureKey}`;
    const a = agent();
    await a.request(path);
    const email = `${uniqueName('guess')}@example.test`;
    await a.form(`${path}/email`, { email });
    await cx.mailbox.codeFor(email);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++)
      statuses.push((await a.form(`${path}/email/code`, { code: '000000' })).res.status);
    expect(statuses.slice(0, 4)).toEqual([303, 303, 303, 303]);
    expect(statuses[4]).toBe(429);
  });

  test('a code mail that cannot be sent is a notice on the page, and no code is pending', async () => {
    // A port nothing listens on: the SMTP connection is refused.
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const mailless = await startConnect(cx.infra, { smtpPort: deadPort });
    try {
      const backend = await provisionBackend(cx.infra, mailless.url);
      const est = await backend.establish({});
      const path = `/inquiries/${est.body.exposureKey}`;
      const a = makeAgent(mailless.url);
      await a.request(path);
      const sent = await a.form(`${path}/email`, { email: `${uniqueName('unsent')}@example.test` });
      expect(sent.res.status).toBe(303);
      const page = await a.request(path);
      expect(page.res.status).toBe(200);
      expect(page.text).toContain('We could not send the email right now.');
      expect(page.text).not.toContain('name="code"');
    } finally {
      await mailless.close();
    }
  });

  test('passkey sign-in attempts are rate limited and need the CSRF header', async () => {
    const backend = await provisionBackend(cx.infra, cx.host.url);
    const est = await backend.establish({});
    const path = `/inquiries/${est.body.exposureKey}`;
    const a = agent();
    await a.request(path);
    const call = (headers: Record<string, string>) =>
      a.request(`${path}/passkey/authentication-options`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: '{}',
      });
    expect((await call({})).res.status).toBe(403);
    const first = await call({ 'x-csrf-token': a.csrf });
    expect(first.res.status).toBe(200);
    expect(JSON.parse(first.text)).toMatchObject({ rpId: '127.0.0.1', userVerification: 'required' });
    const forged = await a.request(`${path}/passkey/authentication`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-csrf-token': a.csrf },
      body: JSON.stringify({
        id: 'x',
        rawId: 'x',
        type: 'public-key',
        response: { clientDataJSON: 'e30', authenticatorData: 'AAAA', signature: 'AAAA', userHandle: 'x' },
        clientExtensionResults: {},
      }),
    });
    expect(forged.res.status).toBe(401);
    expect((await call({ 'x-csrf-token': a.csrf })).res.status).toBe(200);
    expect((await call({ 'x-csrf-token': a.csrf })).res.status).toBe(429);
  });

  test('the basic-terms page of a revision renders read-only', async () => {
    const terms = await cx.infra.db.agreementDocument.findFirst({ orderBy: { revision: 'desc' } });
    const a = agent();
    if (terms) {
      const { res, text } = await a.request(`/terms/${terms.revision}?lang=zh-CN`);
      expect(res.status).toBe(200);
      expect(text).toContain('lang="zh-CN"');
    }
    expect((await a.request('/terms/999999')).res.status).toBe(404);
    expect((await a.request('/terms/99999999999')).res.status).toBe(404);
  });

  test('a revision once read is served from the process without a database read; an unknown one is still 404', async () => {
    // Negative revisions of its own, so the current terms other tests read are never these.
    const revision = -1 - Math.floor(Math.random() * 1_000_000_000);
    const later = revision - 1;
    const title = `Cached terms ${revision}`;
    const body = structuredClone(BASELINE_TERMS);
    body.locales['en-US'].document.title = title;
    const db = cx.infra.db;
    const a = agent();
    expect((await a.request(`/terms/${later}`)).res.status).toBe(404);
    await db.agreementDocument.create({ data: { revision, body } });
    const first = await a.request(`/terms/${revision}?lang=en-US`);
    expect(first.res.status).toBe(200);
    expect(first.text).toContain(title);
    await db.agreementDocument.delete({
      where: { documentType_revision: { documentType: 'BASIC_TERMS', revision } },
    });
    const again = await a.request(`/terms/${revision}?lang=en-US`);
    expect(again.res.status).toBe(200);
    expect(again.text).toContain(title);
    // A miss is not remembered: the revision published after its 404 is served.
    await db.agreementDocument.create({ data: { revision: later, body } });
    expect((await a.request(`/terms/${later}`)).res.status).toBe(200);
    await db.agreementDocument.delete({
      where: { documentType_revision: { documentType: 'BASIC_TERMS', revision: later } },
    });
    expect((await a.request(`/terms/${revision - 2}`)).res.status).toBe(404);
  });
});

describe('errand pages', () => {
  // Its own host: the rate-limit tests above use up the strict limits of the shared one.
  let host: ConnectHost;
  let replica: ConnectHost;
  beforeAll(async () => {
    host = await startConnect(cx.infra, { smtpPort: cx.mailbox.port });
    replica = await startConnect(cx.infra, { smtpPort: cx.mailbox.port });
  });
  afterAll(async () => {
    await host.close();
    await replica.close();
  });
  const agent = (base = host.url) => makeAgent(base);

  test('an account without a passkey re-authenticates by emailed code, then completes the errand once, across replicas', async () => {
    const backend = await provisionBackend(cx.infra, host.url, { claims: { firstName: 'REQUIRED' } });
    const account = await provisionAccount(cx.infra);
    await acceptCurrentTerms(cx.infra, account.id);
    const path = await firstNameErrand(host, backend.fixture.applicationId, account.id);
    const status = async () => (await (await fetch(`${host.url}${path}/status`)).json()).state;
    expect(await status()).toBe('pending');
    const a = agent();
    const first = await a.request(path);
    expect(first.text).toContain('Confirm it is you');
    // Nothing changes before re-authentication.
    await a.form(`${path}/details`, { consent_firstName: 'GRANTED', value_firstName: 'Mallory' });
    expect((await cx.infra.db.account.findUniqueOrThrow({ where: { id: account.id } })).givenName).toBeNull();
    // The flow lives in Redis: each step may land on another replica.
    await a.form(`${replica.url}${path}/email`, {});
    const code = await cx.mailbox.codeFor(account.email);
    const entered = await a.form(`${replica.url}${path}/email/code`, { code });
    expect(entered.res.status).toBe(303);
    const details = await a.request(path);
    expect(details.text).toContain('value_firstName');
    // Each way the form can still leave the gate closed says which claim is in the way, and completes nothing.
    for (const [fields, notice] of [
      [{ consent_firstName: 'GRANTED', value_firstName: ' ' }, 'Fill in: First name.'],
      [{ consent_firstName: 'GRANTED', value_firstName: 'a<b' }, 'Check the value of: First name.'],
      [{ consent_firstName: 'DENIED', value_firstName: '' }, 'needs this to continue: First name.'],
    ] as const) {
      expect((await a.form(`${path}/details`, fields)).res.status).toBe(303);
      expect((await a.request(path)).text).toContain(notice);
      expect(await status()).toBe('pending');
    }
    const done = await a.form(`${replica.url}${path}/details`, {
      consent_firstName: 'GRANTED',
      value_firstName: 'Grace',
    });
    expect(done.res.status).toBe(303);
    expect((await a.request(path)).text).toContain('All done');
    expect(await status()).toBe('completed');
    expect((await cx.infra.db.account.findUniqueOrThrow({ where: { id: account.id } })).givenName).toBe(
      'Grace',
    );
    const again = await agent().request(path);
    expect(again.res.status).toBe(410);
    expect((await fetch(`${host.url}/errands/ernd_unknown/status`)).status).toBe(404);
  });
});
