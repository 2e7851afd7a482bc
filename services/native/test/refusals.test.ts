// The spec's "direct-issue (all)" refusals on the paths other than access-key (access-key.test.ts has them):
// public-key and platform-ticket each answer ApplicationNotActive, AccountDisabled, AccountDeleted,
// ClaimConsentRequired, RequiredClaimDataMissing (and public-key LegalAgreementRequired) through the shared
// issuance tail, each reached by an operator command, and none of them issues a session.
import { createAgreementsStore } from '@svc/issuance/stores';
import { addRule, grantClaim, setAccountStatus, setAppStatus, setClaims } from '@svc/provisioning';
import { postJson, provisionAccount, provisionApp } from '@svc/testkit';
import {
  ensureTerms,
  freshSteamId,
  freshTicket,
  publicKeyFixture,
  sendPublicKey,
  sessionCount,
  useNativeHost,
} from './helpers';

const n = useNativeHost();
const APP_ID = 480;

beforeAll(async () => {
  await ensureTerms(n.infra);
});

interface Signed {
  anchor: string;
  accountId: string;
  /** One more direct-issue attempt with a fresh credential proof. */
  attempt(): Promise<Awaited<ReturnType<typeof postJson>>>;
}

async function publicKeySignIn(opts: { acceptTerms?: boolean } = {}): Promise<Signed> {
  const account =
    opts.acceptTerms === false ? await provisionAccount(n.infra, { acceptTerms: false }) : undefined;
  const f = await publicKeyFixture(n.infra, { account });
  return { anchor: f.app.anchor, accountId: f.account.id, attempt: () => sendPublicKey(n.host, f) };
}

/** A Steam user signed in once (first sign-in creates the account, which accepts the terms). */
async function platformTicketSignIn(): Promise<Signed> {
  const app = await provisionApp(n.infra);
  await addRule(n.infra.provisioning, app.anchor, {
    method: 'PLATFORM_TICKET',
    platformAppIds: [BigInt(APP_ID)],
  });
  const steamId = freshSteamId();
  const attempt = (extra: Record<string, unknown> = {}) => {
    const ticket = freshTicket();
    n.steam.users.set(ticket, steamId);
    return postJson(`${n.host.url}/direct-issue/platform-ticket`, {
      applicationAnchor: app.anchor,
      platformTicketHex: ticket,
      platformAppId: APP_ID,
      ...extra,
    });
  };
  const first = await attempt();
  expect(first.body.reason).toBe('LegalAgreementRequired');
  const terms = (await createAgreementsStore(n.infra.db).currentTerms())!;
  const accepted = await attempt({
    agreementAcceptance: {
      revision: terms.revision,
      locale: 'en-US',
      contentSha256: terms.agreement.locales['en-US'].contentSha256,
      confirmed: true,
    },
  });
  expect(accepted.status).toBe(200);
  const link = await n.infra.db.platformLink.findFirstOrThrow({ where: { platformUserId: steamId } });
  return { anchor: app.anchor, accountId: link.accountId, attempt: () => attempt() };
}

const refusals: [string, (s: Signed) => Promise<unknown>][] = [
  ['ApplicationNotActive', (s) => setAppStatus(n.infra.provisioning, s.anchor, 'SUSPENDED')],
  ['AccountDisabled', (s) => setAccountStatus(n.infra.provisioning, s.accountId, 'DISABLED')],
  ['AccountDeleted', (s) => setAccountStatus(n.infra.provisioning, s.accountId, 'DELETED')],
  ['ClaimConsentRequired', (s) => setClaims(n.infra.provisioning, s.anchor, { email: 'REQUIRED' })],
  [
    'RequiredClaimDataMissing',
    async (s) => {
      await setClaims(n.infra.provisioning, s.anchor, { staticAvatar: 'REQUIRED' });
      await grantClaim(n.infra.provisioning, s.accountId, s.anchor, 'staticAvatar', 'GRANTED');
    },
  ],
];
const paths: [string, () => Promise<Signed>][] = [
  ['public-key', () => publicKeySignIn()],
  ['platform-ticket', platformTicketSignIn],
];

describe.each(paths)('POST /direct-issue/%s refusals', (_, signIn) => {
  test.each(refusals)(
    '%s (403), and no session',
    async (reason, cause) => {
      const s = await signIn();
      const before = await sessionCount(n.infra, s.accountId);
      await cause(s);
      const res = await s.attempt();
      expect([res.status, res.body.reason]).toEqual([403, reason]);
      if (reason === 'ClaimConsentRequired' || reason === 'RequiredClaimDataMissing') {
        expect(Object.keys(res.body.claims)).toHaveLength(5);
        expect(res.body.errand.errandKey).toMatch(/^ernd_/);
      } else {
        expect(res.body).toEqual({ reason });
      }
      expect(await sessionCount(n.infra, s.accountId)).toBe(before);
    },
    60_000,
  );
});

test('public-key: an account without the current basic terms gets LegalAgreementRequired', async () => {
  const s = await publicKeySignIn({ acceptTerms: false });
  const res = await s.attempt();
  expect([res.status, res.body.reason]).toEqual([403, 'LegalAgreementRequired']);
  expect(res.body.termsUrl).toMatch(/^https?:\/\//);
  expect(Object.keys(res.body.agreement.locales).sort()).toEqual(['en-US', 'zh-CN']);
  expect(await sessionCount(n.infra, s.accountId)).toBe(0);
});
