// Email-domain policy on connect: /redeem and /refresh refuse with EmailDomainBlocked, EmailDomainRequiresSso and
// SsoAuthorityConflict (403), and a blocked domain cannot sign up on the pages (no code mailed; the page says why,
// in en-US and zh-CN). Policies are set with `pnpm admin` where the CLI itself is under test, else its library.
import path from 'node:path';
import { linkSsoAuthority, setEmailDomainPolicy } from '@svc/provisioning';
import {
  type Backend,
  makeAgent,
  PAGE_STEP_CEILING_MS,
  postJson,
  provisionAccount,
  provisionBackend,
  uniqueDomain,
} from '@svc/testkit';
import { admin } from '../../../tools/admin/test/run-admin';
import { ARTIFACTS, launchChromium } from './browser-kit';
import { realizeFor, useConnectHost } from './helpers';

const cx = useConnectHost();

let backend: Backend;

beforeAll(async () => {
  backend = await provisionBackend(cx.infra, cx.host.url);
});
const REASONS = ['EmailDomainBlocked', 'EmailDomainRequiresSso', 'SsoAuthorityConflict'] as const;
type Reason = (typeof REASONS)[number];

/** Puts `domain` under the policy that gives `reason` to its accounts; returns how to lift it (ALLOW). */
async function applyPolicy(reason: Reason, domain: string): Promise<() => Promise<void>> {
  if (reason === 'EmailDomainBlocked')
    await setEmailDomainPolicy(cx.infra.provisioning, { domain, policy: 'BLOCK' });
  else
    await setEmailDomainPolicy(cx.infra.provisioning, {
      domain,
      policy: 'REQUIRE_SSO',
      ssoAuthority: 'okta-acme',
    });
  // A policy change is not an authority change (linking the account is: see the test below).
  return async () => void (await setEmailDomainPolicy(cx.infra.provisioning, { domain, policy: 'ALLOW' }));
}

/**
 * An account in a fresh domain and a realized inquiry for it: the keys /redeem takes. For SsoAuthorityConflict
 * the account is linked to another authority first (before sign-in, as linking changes its authority).
 */
async function realizedInquiry(reason?: Reason) {
  const domain = uniqueDomain();
  const account = await provisionAccount(cx.infra, { emailDomain: domain });
  if (reason === 'SsoAuthorityConflict')
    await linkSsoAuthority(cx.infra.provisioning, account.id, 'azure-other');
  const est = await backend.establish({});
  expect(est.status).toBe(200);
  const confirmationKey = await realizeFor(cx.infra, est.body.exposureKey, account.id);
  const keys = { exposureKey: est.body.exposureKey, hiddenKey: est.body.hiddenKey, confirmationKey };
  return { domain, account, keys };
}

const redeem = (keys: Record<string, string>) => postJson(`${cx.host.url}/redeem`, keys);
const refresh = (refreshToken: string) => postJson(`${cx.host.url}/refresh`, { refreshToken });

describe('email-domain policy on /redeem and connect /refresh', () => {
  test.each(REASONS)('/redeem: %s, and the inquiry redeems once the policy allows', async (reason) => {
    const { domain, keys } = await realizedInquiry(reason);
    const lift = await applyPolicy(reason, domain);
    const refused = await redeem(keys);
    expect([refused.status, refused.body]).toEqual([403, { reason }]);
    await lift();
    expect((await redeem(keys)).status).toBe(200);
  });

  test.each(REASONS)('connect /refresh: %s, and nothing is consumed', async (reason) => {
    const { domain, keys } = await realizedInquiry(reason);
    const signedIn = await redeem(keys);
    expect(signedIn.status).toBe(200);
    const lift = await applyPolicy(reason, domain);
    const refused = await refresh(signedIn.body.refreshToken);
    expect([refused.status, refused.body]).toEqual([403, { reason }]);
    await lift();
    expect((await refresh(signedIn.body.refreshToken)).status).toBe(200);
  });
});

test('linking the account to the required authority after sign-in is an authority change: /redeem and connect /refresh are stale', async () => {
  const { domain, account, keys } = await realizedInquiry();
  const signedIn = await realizedInquiry();
  const session = await redeem(signedIn.keys);
  expect(session.status).toBe(200);
  await setEmailDomainPolicy(cx.infra.provisioning, {
    domain,
    policy: 'REQUIRE_SSO',
    ssoAuthority: 'okta-acme',
  });
  await setEmailDomainPolicy(cx.infra.provisioning, {
    domain: signedIn.domain,
    policy: 'REQUIRE_SSO',
    ssoAuthority: 'okta-acme',
  });
  await linkSsoAuthority(cx.infra.provisioning, account.id, 'okta-acme');
  await linkSsoAuthority(cx.infra.provisioning, signedIn.account.id, 'okta-acme');
  const stale = await redeem(keys);
  expect([stale.status, stale.body]).toEqual([409, { reason: 'AuthorizationArtifactStale' }]);
  expect((await refresh(session.body.refreshToken)).status).toBe(401);
});

describe('sign-up on the pages', () => {
  test('a blocked domain (set with pnpm admin) cannot sign up: no code is mailed and the page says why', async () => {
    const domain = uniqueDomain();
    const set = await admin(['email-domain', 'set', '--domain', domain, '--policy', 'BLOCK']);
    expect([set.code, set.json]).toEqual([0, { domain, policy: 'BLOCK' }]);
    const cases = [
      ['en-US', `Email addresses at ${domain} are blocked by policy, so they cannot be used to sign up.`],
      ['zh-CN', `根据策略，${domain} 域名的电子邮箱地址已被禁止，不能用于注册。`],
    ] as const;
    for (const [lang, message] of cases) {
      const est = await backend.establish({});
      const path = `/inquiries/${est.body.exposureKey}`;
      const page = makeAgent(cx.host.url);
      await page.request(`${path}?lang=${lang}`);
      // Case does not matter: the domain is compared without it.
      const email = `newcomer-${lang}@${domain.toUpperCase()}`;
      const sent = await page.form(`${path}/email`, { email });
      expect(sent.res.status).toBe(303);
      const after = await page.request(path);
      expect(after.res.status).toBe(200);
      expect(after.text).toContain(message);
      expect(after.text).not.toContain('name="code"');
      expect(cx.mailbox.messages.filter((m) => m.to === email.toLowerCase())).toEqual([]);
    }
    // A subdomain is not blocked: its newcomer gets a code.
    const est = await backend.establish({});
    const path = `/inquiries/${est.body.exposureKey}`;
    const page = makeAgent(cx.host.url);
    await page.request(path);
    const allowed = `newcomer@eu.${domain}`;
    await page.form(`${path}/email`, { email: allowed });
    expect(await cx.mailbox.codeFor(allowed)).toMatch(/^\d{6}$/);
    expect((await page.request(path)).text).toContain('name="code"');
  }, 60_000);
});

describe('sign-up in Chromium', () => {
  test('the page tells a newcomer at a blocked domain why, in en-US and zh-CN, and mails no code', async () => {
    const domain = uniqueDomain();
    await setEmailDomainPolicy(cx.infra.provisioning, { domain, policy: 'BLOCK' });
    const browser = await launchChromium();
    try {
      const context = await browser.newContext({ locale: 'en-US' });
      context.setDefaultTimeout(PAGE_STEP_CEILING_MS);
      for (const [lang, words] of [
        ['en-US', 'are blocked by policy, so they cannot be used to sign up'],
        ['zh-CN', '域名的电子邮箱地址已被禁止，不能用于注册'],
      ] as const) {
        const est = await backend.establish({});
        const page = await context.newPage();
        await page.goto(`${cx.host.url}/inquiries/${est.body.exposureKey}?lang=${lang}`);
        const email = `chromium-${lang}@${domain}`;
        await page.locator('input[name="email"]').fill(email);
        await page.locator('form[action$="/email"] button[type="submit"]').click();
        const notice = page.locator('.notice');
        await notice.waitFor();
        expect(await notice.textContent()).toContain(words);
        expect(await notice.textContent()).toContain(domain);
        expect(await page.locator('input[name="code"]').count()).toBe(0);
        await page.screenshot({
          path: path.join(ARTIFACTS, `email-domain-blocked.${lang}.png`),
          fullPage: true,
        });
        expect(cx.mailbox.messages.filter((m) => m.to === email)).toEqual([]);
        await page.close();
      }
      await context.close();
    } finally {
      await browser.close();
    }
  }, 60_000);
});
