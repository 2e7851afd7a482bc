// Email-domain policy on all three direct-issue paths (access key, public key, platform ticket), with the
// policies set through `pnpm admin`: EmailDomainBlocked, EmailDomainRequiresSso and SsoAuthorityConflict (403).
import { addRule } from '@svc/provisioning';
import { postJson, provisionAccount, provisionApp, uniqueDomain } from '@svc/testkit';
import { ok } from '../../../tools/admin/test/run-admin';
import {
  accessKeyFor,
  linkedTicket,
  publicKeyFor,
  sessionCount,
  signAssertion,
  useNativeHost,
} from './helpers';

const n = useNativeHost();
let anchor: string;
const APP_ID = 480;
const blockedDomain = uniqueDomain();
const ssoDomain = uniqueDomain();
/** The accounts of each case, keyed by the reason their issuance must give. */
const accounts: Record<string, { id: string }> = {};

const REASONS = ['EmailDomainBlocked', 'EmailDomainRequiresSso', 'SsoAuthorityConflict'] as const;

beforeAll(async () => {
  const app = await provisionApp(n.infra, {
    methods: ['ACCESS_KEY_DIRECT', 'AGENT_ACCESS_KEY_DIRECT', 'PUBLIC_KEY_DIRECT'],
  });
  await addRule(n.infra.provisioning, app.anchor, {
    method: 'PLATFORM_TICKET',
    platformAppIds: [BigInt(APP_ID)],
  });
  anchor = app.anchor;
  accounts.EmailDomainBlocked = await provisionAccount(n.infra, { emailDomain: blockedDomain });
  accounts.EmailDomainRequiresSso = await provisionAccount(n.infra, { emailDomain: ssoDomain });
  accounts.SsoAuthorityConflict = await provisionAccount(n.infra, { emailDomain: ssoDomain });
  const conflictId = accounts.SsoAuthorityConflict.id;
  // One after another, so the answers come in a known order.
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

function expectRefusal(res: Awaited<ReturnType<typeof postJson>>, reason: string) {
  expect([res.status, res.body]).toEqual([403, { reason }]);
}

/** A platform-ticket sign-in as a Steam user linked to the account. */
async function ticketSignIn(accountId: string) {
  return postJson(`${n.host.url}/direct-issue/platform-ticket`, {
    applicationAnchor: anchor,
    platformTicketHex: await linkedTicket(n, accountId),
    platformAppId: APP_ID,
  });
}

describe('email-domain policy on direct issue', () => {
  test.each(REASONS)('access key (account and agent): %s', async (reason) => {
    const account = accounts[reason]!;
    for (const kind of ['ACCOUNT', 'AGENT'] as const) {
      const key = await accessKeyFor(n.infra, anchor, account.id, kind);
      const res = await postJson(`${n.host.url}/direct-issue/access-key`, {
        applicationAnchor: anchor,
        accessKeyIdentifier: key.accessKeyIdentifier,
        accessKeySecret: key.accessKeySecret,
      });
      expectRefusal(res, reason);
    }
    expect(await sessionCount(n.infra, account.id)).toBe(0);
  });

  test.each(REASONS)('public key: %s', async (reason) => {
    const account = accounts[reason]!;
    const cred = await publicKeyFor(n.infra, anchor, account.id);
    const body = JSON.stringify({ applicationAnchor: anchor });
    const jws = await signAssertion(cred.key, cred.kid, body);
    const res = await postJson(`${n.host.url}/direct-issue/public-key`, body, {
      authorization: `PublicKey ${jws}`,
    });
    expectRefusal(res, reason);
    expect(await sessionCount(n.infra, account.id)).toBe(0);
  });

  test.each(REASONS)('platform ticket: %s', async (reason) => {
    const account = accounts[reason]!;
    expectRefusal(await ticketSignIn(account.id), reason);
    expect(await sessionCount(n.infra, account.id)).toBe(0);
  });

  test('platform ticket: the policy is checked before the basic terms are asked for', async () => {
    const account = await provisionAccount(n.infra, { emailDomain: blockedDomain, acceptTerms: false });
    expectRefusal(await ticketSignIn(account.id), 'EmailDomainBlocked');
  });

  test('an account in another domain, or linked to the required authority, is issued', async () => {
    const elsewhere = await provisionAccount(n.infra, { emailDomain: `sub.${blockedDomain}` });
    const linked = await provisionAccount(n.infra, { emailDomain: ssoDomain });
    await n.infra.db.account.update({ where: { id: linked.id }, data: { ssoAuthority: 'okta-acme' } });
    for (const account of [elsewhere, linked]) {
      const key = await accessKeyFor(n.infra, anchor, account.id);
      const res = await postJson(`${n.host.url}/direct-issue/access-key`, {
        applicationAnchor: anchor,
        accessKeyIdentifier: key.accessKeyIdentifier,
        accessKeySecret: key.accessKeySecret,
      });
      expect(res.status).toBe(200);
    }
  });
});
