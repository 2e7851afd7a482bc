// Attack tests: a stolen or left-open account-page session cannot add or remove passkeys once its passkey
// sign-in is older than ACCOUNT_REAUTH_SECONDS; a passkey confirmation (the sign-in ceremony again) comes first.
// The host's clock is testkit's settable clock, moved past the window instead of waiting. Over HTTP with a
// software passkey (the attacker's view), then in Chromium with the virtual authenticator (the person's view:
// confirm, then add, and the owner is mailed).
import {
  type Agent,
  addAuthenticator,
  makeAgent,
  PAGE_STEP_CEILING_MS,
  provisionAccount,
  type SoftPasskey,
  settableClock,
  softPasskey,
} from '@svc/testkit';
import type { Browser } from 'playwright-core';
import { recentlyAuthenticated } from '../src/domain/account-page';
import { launchChromium } from './browser-kit';
import { useConnectHost } from './helpers';
import { mailsTo, waitForMail } from './mail-kit';

jest.setTimeout(120_000);

const WINDOW_SECONDS = 300;
const clock = settableClock();
const cx = useConnectHost({
  hostname: 'localhost',
  clock,
  config: { accountReauthSeconds: WINDOW_SECONDS },
});

/** Usernameless sign-in on /account as the page script does it. */
async function signIn(agent: Agent, passkey: SoftPasskey): Promise<void> {
  const options = await agent.json('/account/passkey/authentication-options', {});
  expect(options.res.status).toBe(200);
  const { challenge } = JSON.parse(options.text) as { challenge: string };
  const assertion = passkey.assert({ challenge, origin: cx.host.url, rpId: 'localhost' });
  const done = await agent.json('/account/passkey/authentication', assertion);
  expect(done.res.status).toBe(200);
  await agent.request('/account');
}

async function personWithTwoPasskeys() {
  const account = await provisionAccount(cx.infra);
  const first = await softPasskey(cx.infra, account.id);
  const second = await softPasskey(cx.infra, account.id);
  const agent = makeAgent(cx.host.url);
  await agent.request('/account');
  await signIn(agent, first);
  return { account, first, second, agent };
}

const rowOf = (credentialId: string) => cx.infra.db.passkey.findUnique({ where: { credentialId } });

/** A registration body that passes the declared schema (the check must refuse it before verifying it). */
const registrationShaped = {
  id: 'AAAA',
  rawId: 'AAAA',
  type: 'public-key',
  clientExtensionResults: {},
  response: { clientDataJSON: 'AAAA', attestationObject: 'AAAA' },
};

test('the window: a sign-in at most ACCOUNT_REAUTH_SECONDS old, never one from the future', () => {
  const t = 1_800_000_000_000;
  expect(recentlyAuthenticated(t, t, 300)).toBe(true);
  expect(recentlyAuthenticated(t, t + 300_000, 300)).toBe(true);
  expect(recentlyAuthenticated(t, t + 300_001, 300)).toBe(false);
  expect(recentlyAuthenticated(t + 1, t, 300)).toBe(false);
  expect(recentlyAuthenticated(undefined, t, 300)).toBe(false);
});

test('past the window a session cannot remove a passkey or start adding one until it confirms with a passkey', async () => {
  const { second, agent, first } = await personWithTwoPasskeys();
  const secondRow = (await rowOf(second.credentialId))!;
  // Within the window: the page offers Add and Remove.
  let page = await agent.request('/account');
  expect(page.text).toContain('data-passkey="register"');
  expect(page.text).toContain(`/account/passkeys/${secondRow.id}/remove`);

  clock.advance(WINDOW_SECONDS * 1000 + 1);
  page = await agent.request('/account');
  expect(page.text).not.toContain('data-passkey="register"');
  expect(page.text).not.toContain(`/account/passkeys/${secondRow.id}/remove`);
  expect(page.text).toContain('Confirm with a passkey');

  // The attacker holding the session posts the forms and calls anyway: nothing changes.
  const removal = await agent.form(`/account/passkeys/${secondRow.id}/remove`, {});
  expect(removal.res.status).toBe(303);
  expect(await rowOf(second.credentialId)).not.toBeNull();
  expect((await agent.request('/account')).text).toContain('Confirm it is you with a passkey first');
  const options = await agent.json('/account/passkey/registration-options', {});
  expect([options.res.status, JSON.parse(options.text)]).toEqual([403, { reason: 'recentSignInNeeded' }]);
  const registration = await agent.json('/account/passkey/registration', registrationShaped);
  expect([registration.res.status, JSON.parse(registration.text)]).toEqual([
    403,
    { reason: 'recentSignInNeeded' },
  ]);
  // Renaming is not a credential change: still allowed.
  const rename = await agent.form(`/account/passkeys/${secondRow.id}/rename`, { name: 'Spare key' });
  expect(rename.res.status).toBe(303);
  expect((await rowOf(second.credentialId))?.name).toBe('Spare key');

  // The step-up: the owner's passkey again, then the same removal goes through.
  await signIn(agent, first);
  expect((await agent.request('/account')).text).toContain('data-passkey="register"');
  expect((await agent.json('/account/passkey/registration-options', {})).res.status).toBe(200);
  await agent.form(`/account/passkeys/${secondRow.id}/remove`, {});
  expect(await rowOf(second.credentialId)).toBeNull();
});

test('options fetched inside the window do not stretch it: the registration itself is checked again', async () => {
  const { agent } = await personWithTwoPasskeys();
  const options = await agent.json('/account/passkey/registration-options', {});
  expect(options.res.status).toBe(200);
  clock.advance(WINDOW_SECONDS * 1000 + 1);
  const registration = await agent.json('/account/passkey/registration', registrationShaped);
  expect(registration.res.status).toBe(403);
  // Back inside the window (a fresh sign-in is not even needed to see the check come second): the same body
  // now reaches the ceremony's verification and is refused there instead.
  clock.advance(-(WINDOW_SECONDS * 1000 + 1));
  const verified = await agent.json('/account/passkey/registration', registrationShaped);
  expect(verified.res.status).not.toBe(403);
});

describe('in Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  test('a page left open past the window: confirm with a passkey, then add one; the owner is mailed', async () => {
    const account = await provisionAccount(cx.infra);
    const passkey = await softPasskey(cx.infra, account.id);
    const context = await browser.newContext({ locale: 'en-US' });
    context.setDefaultTimeout(PAGE_STEP_CEILING_MS);
    try {
      const page = await context.newPage();
      const authenticator = await addAuthenticator(context, page, [passkey.credential('localhost')]);
      await page.goto(`${cx.host.url}/account`);
      await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
      await page.getByRole('button', { name: 'Add a passkey' }).waitFor();

      clock.advance(WINDOW_SECONDS * 1000 + 1);
      await page.goto(`${cx.host.url}/account`);
      expect(await page.getByRole('button', { name: 'Add a passkey' }).count()).toBe(0);
      await page.getByRole('button', { name: 'Confirm with a passkey' }).click();
      // The confirmation is the passkey sign-in again: back on the page with Add offered. The new passkey is
      // made as a security key would (this authenticator already holds the first one, so it would refuse).
      const addButton = page.getByRole('button', { name: 'Add a passkey' });
      await addButton.waitFor();
      await authenticator.remove(passkey.credential('localhost').credentialId);
      await addButton.click();
      await page.getByText('Your new passkey is added. We emailed you about it.').waitFor();
      const mail = await waitForMail(cx.mailbox, account.email!, /passkey was added/);
      expect(mail.subject).toMatch(/^A passkey was added to your account/);
      expect(mailsTo(cx.mailbox, account.email!, /passkey was added/)).toHaveLength(1);
      expect(await cx.infra.db.passkey.count({ where: { accountId: account.id } })).toBe(2);
      expect((await authenticator.credentials()).length).toBe(1);
    } finally {
      await context.close();
    }
  });
});
