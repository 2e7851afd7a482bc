// Attack tests for issue 17 hole 1, over HTTP as the attacker works: fix the browser flow's cookie (one the
// host issued, or an invented one) in the victim's browser, wait for the victim to sign in, sign up or
// re-authenticate, then replay the cookie. A fresh identifier at every change of privilege leaves the copy with
// nothing: no callback, no confirmation key, no consent change. Also the __Host- cookie over HTTPS.
import {
  type Agent,
  expectInventedFlowRefused,
  passkeySignIn as kitSignIn,
  makeAgent,
  provisionAccount,
  provisionBackend,
  type SoftPasskey,
  softPasskey,
  uniqueName,
} from '@svc/testkit';
import { connectConfigFromEnv } from '../src/config';
import { firstNameErrand, startConnect, useConnectHost } from './helpers';

const cx = useConnectHost();

const FLOW = 'connect_flow';

/** The attacker opens the page and keeps the cookie the host issued (and the page's CSRF token). */
async function attackerOpens(path: string): Promise<Agent & { kept: string }> {
  const attacker = makeAgent(cx.host.url);
  const { res } = await attacker.request(path);
  expect(res.status).toBe(200);
  return Object.assign(attacker, { kept: attacker.cookie(FLOW)! });
}

/** The victim's browser, carrying the cookie the attacker planted (a sibling subdomain or an HTTP hop can). */
async function victimWithPlanted(path: string, planted: string): Promise<Agent> {
  const victim = makeAgent(cx.host.url);
  victim.plant(FLOW, planted);
  const { res } = await victim.request(path);
  expect(res.status).toBe(200);
  // Same flow as the attacker's: the host has no way to tell them apart yet.
  expect(victim.cookie(FLOW)).toBe(planted);
  return victim;
}

/** Usernameless sign-in as the page script does it (the kit's), with a software passkey. */
const passkeySignIn = (b: Agent, path: string, passkey: SoftPasskey) =>
  kitSignIn(
    b,
    { base: cx.host.url, origin: cx.host.url, rpId: '127.0.0.1', path, flowCookie: FLOW },
    passkey,
  );

describe('hole 1: a fixed flow cookie gains nothing once the victim signs in', () => {
  test('an invented 43-character cookie is never adopted: a view is issued a host-made one, a post with it is refused and writes nothing', async () => {
    const backend = await provisionBackend(cx.infra, cx.host.url);
    const est = await backend.establish({});
    const path = `/inquiries/${est.body.exposureKey}`;
    const email = `${uniqueName('invented')}@example.test`;
    // The attacker knows the invented value and the page's CSRF token: still not a flow of this host, and refused
    // before anything is written.
    await expectInventedFlowRefused({ base: cx.host.url, path, flowCookie: FLOW }, (attacker) =>
      attacker.form(`${path}/email`, { email }),
    );
    expect(cx.mailbox.messages.some((m) => m.to === email)).toBe(false);
  });

  test('inquiry, passkey sign-in: the replayed cookie reaches neither the callback nor the confirmation key', async () => {
    const backend = await provisionBackend(cx.infra, cx.host.url);
    const account = await provisionAccount(cx.infra);
    const passkey = await softPasskey(cx.infra, account.id);
    const callbackUrl = 'https://app.example.test/cb';
    const est = await backend.establish({ returnMethods: [{ type: 'CALLBACK', payload: { callbackUrl } }] });
    const path = `/inquiries/${est.body.exposureKey}`;
    const attacker = await attackerOpens(path);
    const victim = await victimWithPlanted(path, attacker.kept);

    const signedIn = await passkeySignIn(victim, path, passkey);
    expect(signedIn.res.status).toBe(200);
    expect(victim.cookie(FLOW)).not.toBe(attacker.kept);

    // Before the victim's next page view: the kept cookie is not signed in (a new flow starts).
    const early = await attacker.request(path);
    expect(early.res.status).toBe(200);
    expect(early.res.headers.get('location')).toBeNull();
    expect(early.text).toContain('Sign in with a passkey');
    expect(attacker.cookie(FLOW)).not.toBe(attacker.kept);

    const back = await victim.request(path);
    expect(back.res.status).toBe(303);
    expect(back.res.headers.get('location')).toContain('confirmationKey=iqc_');

    // After the victim returned: replaying the kept cookie again gets no redirect and no key.
    for (const cookie of [attacker.kept, attacker.cookie(FLOW)!]) {
      const replay = makeAgent(cx.host.url);
      replay.plant(FLOW, cookie);
      const late = await replay.request(path);
      expect(late.res.status).toBe(410);
      expect(late.res.headers.get('location')).toBeNull();
      expect(late.text).not.toContain('iqc_');
    }
  });

  test('inquiry, sign-up by emailed code: the replayed cookie cannot register a passkey for the proven address', async () => {
    const backend = await provisionBackend(cx.infra, cx.host.url);
    const est = await backend.establish({ returnMethods: [{ type: 'REVEAL' }] });
    const path = `/inquiries/${est.body.exposureKey}`;
    const attacker = await attackerOpens(path);
    const victim = await victimWithPlanted(path, attacker.kept);
    const email = `${uniqueName('fixed')}@example.test`;
    await victim.form(`${path}/email`, { email });
    const code = await cx.mailbox.codeFor(email);
    expect((await victim.form(`${path}/email/code`, { code })).res.status).toBe(303);
    expect(victim.cookie(FLOW)).not.toBe(attacker.kept);

    const stolen = await attacker.json(`${path}/passkey/registration-options`, {});
    expect(stolen.res.status).toBe(403);
    const page = await attacker.request(path);
    expect(page.text).not.toContain('Create a passkey');
    expect(page.text).not.toContain(email);
    // The victim goes on.
    const own = await victim.request(path);
    expect(own.text).toContain('Create a passkey');
    expect((await victim.json(`${path}/passkey/registration-options`, {})).res.status).toBe(200);
  });

  test.each([
    ['passkey', true],
    ['emailed code', false],
  ])(
    'errand re-authenticated by %s: the attacker’s copy cannot change consent or data',
    async (_how, withPasskey) => {
      const backend = await provisionBackend(cx.infra, cx.host.url, { claims: { firstName: 'REQUIRED' } });
      const account = await provisionAccount(cx.infra);
      const passkey = withPasskey ? await softPasskey(cx.infra, account.id) : undefined;
      const path = await firstNameErrand(cx.host, backend.fixture.applicationId, account.id);
      const attacker = await attackerOpens(path);
      const victim = await victimWithPlanted(path, attacker.kept);
      if (passkey) {
        expect((await passkeySignIn(victim, path, passkey)).res.status).toBe(200);
      } else {
        await victim.form(`${path}/email`, {});
        const code = await cx.mailbox.codeFor(account.email);
        expect((await victim.form(`${path}/email/code`, { code })).res.status).toBe(303);
      }
      expect(victim.cookie(FLOW)).not.toBe(attacker.kept);

      const forged = await attacker.form(`${path}/details`, {
        consent_firstName: 'GRANTED',
        value_firstName: 'Mallory',
      });
      expect(forged.res.status).toBe(403);
      const row = await cx.infra.db.account.findUniqueOrThrow({ where: { id: account.id } });
      expect(row.givenName).toBeNull();
      expect(await cx.infra.db.claimGrant.count({ where: { accountId: account.id } })).toBe(0);
      const page = await attacker.request(path);
      expect(page.text).toContain('Confirm it is you');
      expect(page.text).not.toContain('value_firstName');

      // The victim's own (rotated) flow completes the errand.
      await victim.request(path);
      const done = await victim.form(`${path}/details`, {
        consent_firstName: 'GRANTED',
        value_firstName: 'Grace',
      });
      expect(done.res.status).toBe(303);
      expect((await victim.request(path)).text).toContain('All done');
      expect((await cx.infra.db.account.findUniqueOrThrow({ where: { id: account.id } })).givenName).toBe(
        'Grace',
      );
    },
  );
});

describe('hole 1: the __Host- cookie over HTTPS', () => {
  test('CONNECT_URL https names the cookie __Host-connect_flow; loopback HTTP keeps the plain name', () => {
    const https = connectConfigFromEnv({ CONNECT_URL: 'https://connect.example.test' });
    expect(https.flowCookieName).toBe('__Host-connect_flow');
    expect(https.secureCookies).toBe(true);
    const loopback = connectConfigFromEnv({ CONNECT_URL: 'http://127.0.0.1:4101' });
    expect(loopback.flowCookieName).toBe('connect_flow');
    expect(loopback.secureCookies).toBe(false);
  });

  test('the __Host- cookie is Secure, Path=/, without Domain; a plain-named cookie planted beside it is ignored', async () => {
    const secure = await startConnect(cx.infra, {
      config: { secureCookies: true, flowCookieName: '__Host-connect_flow' },
    });
    try {
      const backend = await provisionBackend(cx.infra, secure.url);
      const est = await backend.establish({});
      const path = `/inquiries/${est.body.exposureKey}`;
      // A sibling subdomain can set connect_flow (no prefix): the host does not read it.
      const planter = makeAgent(secure.url);
      await planter.request(path);
      const issued = planter.cookie('__Host-connect_flow')!;
      const victim = makeAgent(secure.url);
      victim.plant('connect_flow', issued);
      const { res } = await victim.request(path);
      const cookie = res.headers.getSetCookie().find((c) => c.startsWith('__Host-connect_flow='))!;
      expect(cookie).toMatch(/; Path=\/(;|$)/);
      expect(cookie).toMatch(/; Secure/);
      expect(cookie).toMatch(/; HttpOnly/);
      expect(cookie).not.toMatch(/Domain=/i);
      expect(victim.cookie('__Host-connect_flow')).not.toBe(issued);
    } finally {
      await secure.close();
    }
  });
});
