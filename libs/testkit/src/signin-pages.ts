// The sign-in pages' checks every host with them runs in Chromium (connect, OIDC, device; the steps are libs/signin's):
// axe-core finds no serious or critical violation in either language, sign-up by keyboard alone, errors announced
// and focused, passkey autofill in the email field, the returning person who picks "I am new here", and the code
// page's resend and stated lifetime. A host's test supplies how to open a fresh sign-in page and its mailbox.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import {
  addAuthenticator,
  type Credential,
  PAGE_STEP_CEILING_MS,
  type VirtualAuthenticator,
} from './chromium';
import { type Mailbox, mailBodyText } from './mailbox';
import { waitUntil } from './wait';

/** What a host's test hands the checks. */
export interface SigninPages {
  /** Navigates `page` to a fresh sign-in page of the host (its own flow and target), in English. */
  open(page: Page): Promise<void>;
  mailbox: Mailbox;
  /** Where screenshots go (a host's test-artifacts folder), and the prefix of their names. */
  artifacts: string;
  prefix: string;
}

let axeSource: string | undefined;

/**
 * axe-core's violations of impact serious or critical on the page as it stands (WCAG 2.x A and AA rules and axe's
 * best practices), one line each. axe is evaluated in the page over CDP, which the page's CSP does not govern.
 */
export async function seriousAxeViolations(page: Page): Promise<string[]> {
  axeSource ??= readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as { axe: { run(ctx: Document): Promise<{ violations: AxeViolation[] }> } }
    ).axe;
    const result = await axe.run(document);
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      nodes: v.nodes.map((n) => n.target.join(' ')),
    }));
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.join(', ')}`);
}

interface AxeViolation {
  id: string;
  impact: string | null;
  nodes: { target: string[] }[];
}

/**
 * Screenshots the page in both languages (re-loading it with ?lang=, ending in English) and runs axe on each;
 * returns the serious or critical violations, prefixed with the page's name and language. What a post's notice
 * showed is gone after the reload: check those pages with `seriousAxeViolations` before.
 */
export async function shootAndCheck(page: Page, dir: string, name: string): Promise<string[]> {
  const found: string[] = [];
  const url = new URL(page.url());
  for (const locale of ['en-US', 'zh-CN'] as const) {
    url.searchParams.set('lang', locale);
    await page.goto(url.toString());
    await page.screenshot({ path: path.join(dir, `${name}.${locale}.png`), fullPage: true });
    for (const v of await seriousAxeViolations(page)) found.push(`${name} ${locale}: ${v}`);
  }
  url.searchParams.set('lang', 'en-US');
  await page.goto(url.toString());
  return found;
}

/** True when the focused element matches `selector`. */
const focused = (page: Page, selector: string) =>
  page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector);

/** Presses Tab until `selector` has the focus (at most 40 times); the keyboard user's way through a page. */
export async function tabTo(page: Page, selector: string): Promise<void> {
  for (let i = 0; i < 40; i++) {
    if (await focused(page, selector)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached ${selector}`);
}

/** The focused element's role and text: an error must be announced (role alert) and hold the focus. */
export async function focusedAlert(page: Page): Promise<string | undefined> {
  return page.evaluate(() => {
    const el = document.activeElement;
    return el?.getAttribute('role') === 'alert' ? (el.textContent ?? '') : undefined;
  });
}

/** How many mails went to `to` so far. */
export const mailsTo = (mailbox: Mailbox, to: string): string[] =>
  mailbox.messages.filter((m) => m.to === to.toLowerCase()).map((m) => mailBodyText(m.text));

/** The code of the `index`-th mail to `to` (0 first), once it arrived. */
export async function nthCode(mailbox: Mailbox, to: string, index: number): Promise<string> {
  let code: string | undefined;
  await waitUntil(async () => {
    code = /\b(\d{6})\b/.exec(mailsTo(mailbox, to)[index] ?? '')?.[1];
    return Boolean(code);
  });
  return code as string;
}

/** Submits a form by its button and waits for the page the post leads to. */
async function submit(page: Page, name: string | RegExp): Promise<void> {
  await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name }).click()]);
}

/**
 * Sign-up by keyboard alone on a fresh sign-in page: Tab to the email field, type, Enter; the code field has the
 * focus on the next page; a wrong code's error is announced and focused; the right one; Tab to "Create a passkey",
 * Enter. Checks axe on the pages passed (the code page, its error, the passkey page). Resolves once the passkey
 * ceremony was started; returns the serious violations found.
 */
export async function signUpByKeyboard(page: Page, pages: SigninPages, email: string): Promise<string[]> {
  const found: string[] = [];
  await pages.open(page);
  found.push(...(await seriousAxeViolations(page)).map((v) => `sign-in: ${v}`));
  await tabTo(page, '#email');
  await page.keyboard.type(email);
  await Promise.all([page.waitForEvent('load'), page.keyboard.press('Enter')]);
  await page.locator('#code').waitFor();
  if (!(await focused(page, '#code'))) throw new Error('the code field does not have the focus');
  found.push(...(await seriousAxeViolations(page)).map((v) => `code: ${v}`));
  await page.keyboard.type('000000');
  await Promise.all([page.waitForEvent('load'), page.keyboard.press('Enter')]);
  const alert = await focusedAlert(page);
  if (!alert?.includes('not right')) throw new Error(`a wrong code's error is not focused: ${alert}`);
  found.push(...(await seriousAxeViolations(page)).map((v) => `code error: ${v}`));
  await tabTo(page, '#code');
  await page.keyboard.type(await nthCode(pages.mailbox, email, 0));
  await Promise.all([page.waitForEvent('load'), page.keyboard.press('Enter')]);
  await page.locator('[data-passkey="register"]:not([disabled])').waitFor();
  found.push(...(await seriousAxeViolations(page)).map((v) => `create passkey: ${v}`));
  await tabTo(page, '[data-passkey="register"]');
  await page.keyboard.press('Enter');
  return found;
}

/** Waits until the page left the sign-in step: no passkey button, email or code field, and no error heading. */
export async function leftSignIn(page: Page): Promise<void> {
  await page
    .waitForFunction(
      () =>
        document.readyState === 'complete' &&
        !document.querySelector('[data-passkey], #email, #code') &&
        !/Something went wrong|出错了/.test(document.querySelector('h1')?.textContent ?? ''),
      undefined,
      { timeout: 20_000 },
    )
    .catch(async (err: Error) => {
      const state = await page
        .evaluate(() => ({
          h1: document.querySelector('h1')?.textContent,
          autofill: document.querySelector('#email')?.getAttribute('data-autofill'),
          status: Array.from(document.querySelectorAll('[data-passkey-status], .notice')).map(
            (e) => e.textContent,
          ),
        }))
        .catch(() => undefined);
      throw new Error(`still signing in at ${page.url()}: ${JSON.stringify(state)} (${err.message})`);
    });
}

/**
 * A fresh page whose authenticator holds `credentials` (none: a device without a passkey yet) and records every
 * navigator.credentials.get's mediation, so a test can tell autofill (conditional) from the button (undefined).
 */
export async function pageWithAuthenticator(
  context: BrowserContext,
  credentials: Credential[] = [],
): Promise<{ page: Page; authenticator: VirtualAuthenticator }> {
  const page = await context.newPage();
  await page.addInitScript(() => {
    const w = window as unknown as { mediations: string[] };
    w.mediations = [];
    const get = navigator.credentials.get.bind(navigator.credentials);
    navigator.credentials.get = (options?: CredentialRequestOptions) => {
      w.mediations.push(String(options?.mediation ?? 'optional'));
      return get(options);
    };
  });
  const authenticator = await addAuthenticator(context, page, credentials);
  return { page, authenticator };
}

/** The mediations of the page's credentials.get calls so far (`conditional` for autofill). */
export const mediations = (page: Page): Promise<string[]> =>
  page.evaluate(() => (window as unknown as { mediations: string[] }).mediations);

/**
 * Fills the email field and sends the code (the field's focus starts autofill, which finds no passkey here). A code
 * to the address moments ago (the resend gap) is refused on the page: asked again, as a person would, until sent.
 */
export async function askForCode(page: Page, email: string): Promise<void> {
  await waitUntil(
    async () => {
      await page.locator('#email').fill(email);
      await submit(page, /^(Send me a code|发送验证码)$/);
      return (await page.locator('#code').count()) > 0;
    },
    30_000,
    500,
  );
}

/** Types a code and continues. */
export async function enterCode(page: Page, code: string): Promise<void> {
  await page.locator('#code').fill(code);
  await submit(page, /^(Continue|继续)$/);
}

export { submit as submitForm };

/** What `signinPageTests` reads once the host's test file opened it (in its beforeAll). */
export interface SigninPagesEnv extends SigninPages {
  browser: import('playwright-core').Browser;
  /** The host's configured code lifetime as the page and the mail state it, e.g. 7 minutes / 7分钟. */
  lifetime: { 'en-US': string; 'zh-CN': string };
  /** A name for this host's addresses. */
  host: string;
}

/**
 * The tests of issue 40 on one host's sign-in pages, from outside, in Chromium with a virtual authenticator. The
 * host is configured with a non-default code lifetime (`lifetime`) and a resend gap of a few seconds.
 */
export function signinPageTests(get: () => SigninPagesEnv): void {
  const newContext = async (locale: 'en-US' | 'zh-CN' = 'en-US') => {
    const context = await get().browser.newContext({ locale });
    context.setDefaultTimeout(PAGE_STEP_CEILING_MS);
    return context;
  };
  const address = (what: string) =>
    `${what}-${get().host}-${process.hrtime.bigint()}@example.test`.toLowerCase();
  const shots = (page: Page, name: string) => shootAndCheck(page, get().artifacts, `${get().prefix}-${name}`);

  /** A person who signed up on this host; the passkey their device holds. */
  async function signedUpPerson(): Promise<{ email: string; credential: Credential }> {
    const email = address('returning');
    const context = await newContext();
    try {
      const { page, authenticator } = await pageWithAuthenticator(context);
      await get().open(page);
      await askForCode(page, email);
      await enterCode(page, await nthCode(get().mailbox, email, 0));
      await page.getByRole('button', { name: 'Create a passkey' }).click();
      await leftSignIn(page);
      const [credential] = await authenticator.credentials();
      if (!credential) throw new Error('no passkey was created');
      return { email, credential };
    } finally {
      await context.close();
    }
  }

  test('sign-up by keyboard alone: every page passes axe, a wrong code is announced and focused', async () => {
    const context = await newContext();
    try {
      const { page, authenticator } = await pageWithAuthenticator(context);
      const found = await signUpByKeyboard(page, get(), address('keyboard'));
      await leftSignIn(page);
      found.push(...(await seriousAxeViolations(page)).map((v) => `after sign-up: ${v}`));
      expect(await authenticator.credentials()).toHaveLength(1);
      expect(found).toEqual([]);
    } finally {
      await context.close();
    }
  });

  test('the code page states the configured lifetime as the mail does; a new code replaces the old; too soon is refused on the page', async () => {
    const { mailbox, lifetime } = get();
    const email = address('resend');
    const context = await newContext();
    try {
      const { page } = await pageWithAuthenticator(context);
      await get().open(page);
      expect(await page.locator('#email').getAttribute('autocomplete')).toBe('username webauthn');
      expect(await shots(page, '01-sign-in')).toEqual([]);
      await askForCode(page, email);
      expect(await page.locator('#code-intro').textContent()).toContain(
        `It expires in ${lifetime['en-US']}.`,
      );
      const first = await nthCode(mailbox, email, 0);
      expect(mailsTo(mailbox, email)[0]).toContain(`It expires in ${lifetime['en-US']}.`);
      // Asked again at once: refused on the same page, announced and focused, in either language; no mail.
      await submit(page, 'Send a new code');
      expect(await focusedAlert(page)).toMatch(
        /^You cannot get a new code yet\. Try again in \d+ seconds?\.$/,
      );
      expect(await seriousAxeViolations(page)).toEqual([]);
      await page.screenshot({
        path: path.join(get().artifacts, `${get().prefix}-02-resend-too-soon.en-US.png`),
      });
      const zh = new URL(page.url());
      zh.searchParams.set('lang', 'zh-CN');
      await page.goto(zh.toString());
      await submit(page, '重新发送验证码');
      expect(await focusedAlert(page)).toMatch(/^暂时无法获取新的验证码，请在 \d+秒钟?后重试。$/);
      await page.screenshot({
        path: path.join(get().artifacts, `${get().prefix}-02-resend-too-soon.zh-CN.png`),
      });
      expect(mailsTo(mailbox, email)).toHaveLength(1);
      expect(await page.locator('#code').count()).toBe(1);
      expect(await shots(page, '02-code')).toEqual([]);
      await page.goto(zh.toString());
      expect(await page.locator('#code-intro').textContent()).toContain(`${lifetime['zh-CN']}后失效`);
      // Once the gap has passed, a new code is sent (in the page's language) and the old one stops working.
      await waitUntil(
        async () => {
          await submit(page, '重新发送验证码');
          return (await page.locator('.notice').textContent())?.startsWith('我们已向') ?? false;
        },
        // The hosts' gap (EMAIL_CODE_RESEND_SECONDS, 30-40 s in these tests: long enough that the refusals above
        // still fall inside it at load 20, where 10 s did not) plus a margin.
        90_000,
        500,
      );
      await page.screenshot({ path: path.join(get().artifacts, `${get().prefix}-03-code-resent.zh-CN.png`) });
      expect(mailsTo(mailbox, email)).toHaveLength(2);
      expect(mailsTo(mailbox, email)[1]).toContain(`验证码将在 ${lifetime['zh-CN']}后失效`);
      const second = await nthCode(mailbox, email, 1);
      if (first !== second) {
        await enterCode(page, first);
        expect(await page.locator('.notice').textContent()).toContain('验证码不正确');
      }
      await enterCode(page, second);
      await page.locator('[data-passkey="register"]').waitFor();
      expect(await shots(page, '04-create-passkey')).toEqual([]);
    } finally {
      await context.close();
    }
  });

  test('a returning person under "I am new here" is told, and ends signed in with the passkey this device holds', async () => {
    const person = await signedUpPerson();
    const { email } = person;
    let { credential } = person;
    const context = await newContext();
    try {
      // The device's passkey is not offered yet (no autofill): the person types their address under "new".
      const { page, authenticator } = await pageWithAuthenticator(context);
      await get().open(page);
      await askForCode(page, email);
      await enterCode(page, await nthCode(get().mailbox, email, 1));
      await page.getByRole('heading', { level: 1, name: /^Welcome back to / }).waitFor();
      expect(await page.textContent('main')).toContain(`${email} already has an account`);
      expect(await shots(page, '05-returning')).toEqual([]);
      // Creating a passkey where one for the account already is: the refusal says so and leads to signing in.
      await authenticator.add(credential);
      await page.getByRole('button', { name: 'Create a new passkey' }).click();
      await page.locator('[data-passkey-status]:not(:empty)').first().waitFor();
      expect(await focusedAlert(page)).toBe(
        'This device already holds a passkey for this account. Sign in with it instead.',
      );
      const forward = page.getByRole('button', { name: 'Sign in with the passkey on this device' });
      expect(await forward.isVisible()).toBe(true);
      expect(await seriousAxeViolations(page)).toEqual([]);
      await page.screenshot({
        path: path.join(get().artifacts, `${get().prefix}-06-passkey-exists.en-US.png`),
        fullPage: true,
      });
      await forward.click();
      await leftSignIn(page);
      // The passkey as the authenticator now holds it (its signature counter moved on).
      const held = await authenticator.credentials();
      expect(held).toHaveLength(1);
      [credential] = held as [Credential];
    } finally {
      await context.close();
    }
    // In Chinese, the same refusal in the page's language.
    const zh = await newContext('zh-CN');
    try {
      const { page, authenticator } = await pageWithAuthenticator(zh);
      await get().open(page);
      const url = new URL(page.url());
      url.searchParams.set('lang', 'zh-CN');
      await page.goto(url.toString());
      const seen = mailsTo(get().mailbox, email).length;
      await askForCode(page, email);
      await enterCode(page, await nthCode(get().mailbox, email, seen));
      await page.getByRole('heading', { level: 1, name: /^欢迎回到/ }).waitFor();
      await authenticator.add(credential);
      await page.getByRole('button', { name: '创建新的通行密钥' }).click();
      await page.locator('[data-passkey-status]:not(:empty)').first().waitFor();
      expect(await focusedAlert(page)).toBe('本设备上已有此账户的通行密钥，请直接用它登录。');
      await page.screenshot({
        path: path.join(get().artifacts, `${get().prefix}-06-passkey-exists.zh-CN.png`),
        fullPage: true,
      });
      await page.getByRole('button', { name: '使用本设备上的通行密钥登录' }).click();
      await leftSignIn(page);
    } finally {
      await zh.close();
    }
  });

  test('a returning person without a passkey on this device signs in by the email code alone; nothing is added', async () => {
    const { email } = await signedUpPerson();
    const context = await newContext();
    try {
      const { page, authenticator } = await pageWithAuthenticator(context);
      await get().open(page);
      await askForCode(page, email);
      await enterCode(page, await nthCode(get().mailbox, email, 1));
      await submit(page, 'Sign in with the email code');
      await leftSignIn(page);
      expect(await authenticator.credentials()).toHaveLength(0);
    } finally {
      await context.close();
    }
    // Cancelling the passkey prompt is explained too: a device without the passkey, in a fresh browser.
    const fresh = await newContext();
    try {
      const { page } = await pageWithAuthenticator(fresh);
      await get().open(page);
      await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
      await page.locator('[data-passkey-status]:not(:empty)').first().waitFor();
      expect(await focusedAlert(page)).toMatch(
        /^No passkey was used: the request was cancelled, or this device holds no passkey/,
      );
      expect(await seriousAxeViolations(page)).toEqual([]);
      await page.screenshot({
        path: path.join(get().artifacts, `${get().prefix}-07-passkey-cancelled.en-US.png`),
        fullPage: true,
      });
    } finally {
      await fresh.close();
    }
  });

  test('passkey autofill: the email field offers the passkey by conditional mediation; the button stays; no WebAuthn works as before', async () => {
    let { credential } = await signedUpPerson();
    const context = await newContext();
    try {
      const { page, authenticator } = await pageWithAuthenticator(context, [credential]);
      await get().open(page);
      const field = page.locator('#email');
      expect(await field.getAttribute('autocomplete')).toBe('username webauthn');
      await page.locator('#email[data-autofill="ready"]').waitFor();
      expect(await mediations(page)).toEqual([]);
      // The person focuses the field and picks the passkey (the virtual authenticator picks it at once).
      await field.focus();
      await leftSignIn(page);
      // The passkey as the authenticator now holds it (its signature counter moved on).
      [credential] = (await authenticator.credentials()) as [Credential];
    } finally {
      await context.close();
    }
    // The request was conditional; a device without the passkey sees its request end and signs up as before.
    const other = await newContext();
    try {
      const { page } = await pageWithAuthenticator(other);
      await get().open(page);
      await page.locator('#email[data-autofill="ready"]').waitFor();
      await page.locator('#email').focus();
      await page.locator('#email[data-autofill="ended"]').waitFor();
      expect(await mediations(page)).toEqual(['conditional']);
      await askForCode(page, address('after-autofill'));
    } finally {
      await other.close();
    }
    // The explicit button stays.
    const both = await newContext();
    try {
      const { page } = await pageWithAuthenticator(both, [credential]);
      await get().open(page);
      await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
      await leftSignIn(page);
    } finally {
      await both.close();
    }
    // A browser without WebAuthn: no autofill starts, the email form works as before.
    const bare = await newContext();
    try {
      const page = await bare.newPage();
      await page.addInitScript(() => {
        delete (window as { PublicKeyCredential?: unknown }).PublicKeyCredential;
      });
      await get().open(page);
      await page.locator('[data-passkey]:not([disabled])').first().waitFor();
      expect(await page.locator('#email').getAttribute('data-autofill')).toBeNull();
      await askForCode(page, address('no-webauthn'));
    } finally {
      await bare.close();
    }
  });
}
