// Email-domain policy on all three direct-issue paths (access key, public key, platform ticket), with the
// policies set through `pnpm admin`: EmailDomainBlocked, EmailDomainRequiresSso and SsoAuthorityConflict (403).
import { addRule } from '@svc/provisioning';
import {
  postJson,
  provisionAccount,
  provisionApp,
  type RunningTestHost,
  type TestInfra,
  uniqueDomain,
} from '@svc/testkit';
import { admin } from '../../../tools/admin/test/run-admin';
import {
  accessKeyFor,
  freshSteamId,
  freshTicket,
  openInfra,
  publicKeyFor,
  type SteamStandIn,
  sessionCount,
  signAssertion,
  startNative,
  startSteamStandIn,
} from './helpers';

let infra: TestInfra;
let steam: SteamStandIn;
let host: RunningTestHost;
let anchor: string;
const APP_ID = 480;
const blockedDomain = uniqueDomain();
const ssoDomain = uniqueDomain();
/** The accounts of each case, keyed by the reason their issuance must give. */
const accounts: Record<string, { id: string }> = {};

const REASONS = ['EmailDomainBlocked', 'EmailDomainRequiresSso', 'SsoAuthorityConflict'] as const;

async function ok(args: string[]) {
  const run = await admin(args);
  expect(run.code).toBe(0);
  return run.json;
}

beforeAll(async () => {
  infra = openInfra();
  steam = await startSteamStandIn();
  host = await startNative(infra, { steamApiUrl: steam.url, steamTimeoutMs: 2000 });
  const app = await provisionApp(infra, {
    methods: ['ACCESS_KEY_DIRECT', 'AGENT_ACCESS_KEY_DIRECT', 'PUBLIC_KEY_DIRECT'],
  });
  await addRule(infra.db, app.anchor, { method: 'PLATFORM_TICKET', platformAppIds: [BigInt(APP_ID)] });
  anchor = app.anchor;
  accounts.EmailDomainBlocked = await provisionAccount(infra, { emailDomain: blockedDomain });
  accounts.EmailDomainRequiresSso = await provisionAccount(infra, { emailDomain: ssoDomain });
  accounts.SsoAuthorityConflict = await provisionAccount(infra, { emailDomain: ssoDomain });
  const conflictId = accounts.SsoAuthorityConflict.id;
  // One after another: each CLI run is a process start, and the machine may be busy.
  const blocked = await ok(['email-domain', 'set', '--domain', blockedDomain, '--policy', 'BLOCK']);
  const sso = await ok([
    'email-domain',
    'set',
    '--domain',
    ssoDomain,
    '--policy',
    'REQUIRE_SSO',
    '--sso-authority',
    'okta-acme',
  ]);
  const linked = await ok(['account', 'link-sso', '--account', conflictId, '--authority', 'azure-other']);
  expect([blocked, sso, linked]).toEqual([
    { domain: blockedDomain, policy: 'BLOCK' },
    { domain: ssoDomain, policy: 'REQUIRE_SSO' },
    { id: conflictId, ssoAuthority: 'azure-other' },
  ]);
}, 120_000);
afterAll(async () => {
  await host.close();
  await steam.close();
  await infra.close();
});

function expectRefusal(res: Awaited<ReturnType<typeof postJson>>, reason: string) {
  expect([res.status, res.body]).toEqual([403, { reason }]);
}

describe('email-domain policy on direct issue', () => {
  test.each(REASONS)('access key (account and agent): %s', async (reason) => {
    const account = accounts[reason]!;
    for (const kind of ['ACCOUNT', 'AGENT'] as const) {
      const key = await accessKeyFor(infra, anchor, account.id, kind);
      const res = await postJson(`${host.url}/direct-issue/access-key`, {
        applicationAnchor: anchor,
        accessKeyIdentifier: key.accessKeyIdentifier,
        accessKeySecret: key.accessKeySecret,
      });
      expectRefusal(res, reason);
    }
    expect(await sessionCount(infra, account.id)).toBe(0);
  });

  test.each(REASONS)('public key: %s', async (reason) => {
    const account = accounts[reason]!;
    const cred = await publicKeyFor(infra, anchor, account.id);
    const body = JSON.stringify({ applicationAnchor: anchor });
    const jws = await signAssertion(cred.key, cred.kid, body);
    const res = await postJson(`${host.url}/direct-issue/public-key`, body, {
      authorization: `PublicKey ${jws}`,
    });
    expectRefusal(res, reason);
    expect(await sessionCount(infra, account.id)).toBe(0);
  });

  test.each(REASONS)('platform ticket: %s', async (reason) => {
    const account = accounts[reason]!;
    const steamId = freshSteamId();
    await infra.db.platformLink.create({
      data: { platform: 'STEAM', platformUserId: steamId, accountId: account.id },
    });
    const ticket = freshTicket();
    steam.users.set(ticket, steamId);
    const res = await postJson(`${host.url}/direct-issue/platform-ticket`, {
      applicationAnchor: anchor,
      platformTicketHex: ticket,
      platformAppId: APP_ID,
    });
    expectRefusal(res, reason);
    expect(await sessionCount(infra, account.id)).toBe(0);
  });

  test('platform ticket: the policy is checked before the basic terms are asked for', async () => {
    const account = await provisionAccount(infra, { emailDomain: blockedDomain, acceptTerms: false });
    const steamId = freshSteamId();
    await infra.db.platformLink.create({
      data: { platform: 'STEAM', platformUserId: steamId, accountId: account.id },
    });
    const ticket = freshTicket();
    steam.users.set(ticket, steamId);
    const res = await postJson(`${host.url}/direct-issue/platform-ticket`, {
      applicationAnchor: anchor,
      platformTicketHex: ticket,
      platformAppId: APP_ID,
    });
    expectRefusal(res, 'EmailDomainBlocked');
  });

  test('an account in another domain, or linked to the required authority, is issued', async () => {
    const elsewhere = await provisionAccount(infra, { emailDomain: `sub.${blockedDomain}` });
    const linked = await provisionAccount(infra, { emailDomain: ssoDomain });
    await infra.db.account.update({ where: { id: linked.id }, data: { ssoAuthority: 'okta-acme' } });
    for (const account of [elsewhere, linked]) {
      const key = await accessKeyFor(infra, anchor, account.id);
      const res = await postJson(`${host.url}/direct-issue/access-key`, {
        applicationAnchor: anchor,
        accessKeyIdentifier: key.accessKeyIdentifier,
        accessKeySecret: key.accessKeySecret,
      });
      expect(res.status).toBe(200);
    }
  });
});
