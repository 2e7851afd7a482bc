// The spec's "direct-issue (all)" refusals on the paths other than access-key (access-key.test.ts has them):
// public-key and platform-ticket each answer ApplicationNotActive, AccountDisabled, AccountDeleted,
// ClaimConsentRequired, RequiredClaimDataMissing (and public-key LegalAgreementRequired) through the shared
// issuance tail, each reached by an operator command, and none of them issues a session.
import { currentTerms } from '@svc/issuance';
import { addRule, grantClaim, setAccountStatus, setAppStatus, setClaims } from '@svc/provisioning';
import { postJson, provisionAccount, provisionApp, type RunningTestHost, type TestInfra } from '@svc/testkit';
import {
  ensureTerms,
  freshSteamId,
  freshTicket,
  openInfra,
  publicKeyFor,
  type SteamStandIn,
  sessionCount,
  settledAccount,
  signAssertion,
  startNative,
  startSteamStandIn,
} from './helpers';

let infra: TestInfra;
let steam: SteamStandIn;
let host: RunningTestHost;
const APP_ID = 480;

beforeAll(async () => {
  infra = openInfra();
  steam = await startSteamStandIn();
  await ensureTerms(infra);
  host = await startNative(infra, { steamApiUrl: steam.url, steamTimeoutMs: 2000 });
});
afterAll(async () => {
  await host.close();
  await steam.close();
  await infra.close();
});

interface Signed {
  anchor: string;
  accountId: string;
  /** One more direct-issue attempt with a fresh credential proof. */
  attempt(): Promise<Awaited<ReturnType<typeof postJson>>>;
}

async function publicKeySignIn(opts: { acceptTerms?: boolean } = {}): Promise<Signed> {
  const app = await provisionApp(infra, { methods: ['PUBLIC_KEY_DIRECT'] });
  const account =
    opts.acceptTerms === false
      ? await provisionAccount(infra, { acceptTerms: false })
      : await settledAccount(infra);
  const cred = await publicKeyFor(infra, app.anchor, account.id);
  const body = JSON.stringify({ applicationAnchor: app.anchor });
  return {
    anchor: app.anchor,
    accountId: account.id,
    attempt: async () =>
      postJson(`${host.url}/direct-issue/public-key`, body, {
        authorization: `PublicKey ${await signAssertion(cred.key, cred.kid, body)}`,
      }),
  };
}

/** A Steam user signed in once (first sign-in creates the account, which accepts the terms). */
async function platformTicketSignIn(): Promise<Signed> {
  const app = await provisionApp(infra);
  await addRule(infra.db, app.anchor, { method: 'PLATFORM_TICKET', platformAppIds: [BigInt(APP_ID)] });
  const steamId = freshSteamId();
  const attempt = (extra: Record<string, unknown> = {}) => {
    const ticket = freshTicket();
    steam.users.set(ticket, steamId);
    return postJson(`${host.url}/direct-issue/platform-ticket`, {
      applicationAnchor: app.anchor,
      platformTicketHex: ticket,
      platformAppId: APP_ID,
      ...extra,
    });
  };
  const first = await attempt();
  expect(first.body.reason).toBe('LegalAgreementRequired');
  const terms = (await currentTerms(infra.db))!;
  const accepted = await attempt({
    agreementAcceptance: {
      revision: terms.revision,
      locale: 'en-US',
      contentSha256: terms.agreement.locales['en-US'].contentSha256,
      confirmed: true,
    },
  });
  expect(accepted.status).toBe(200);
  const link = await infra.db.platformLink.findFirstOrThrow({ where: { platformUserId: steamId } });
  return { anchor: app.anchor, accountId: link.accountId, attempt: () => attempt() };
}

const refusals: [string, (s: Signed) => Promise<unknown>][] = [
  ['ApplicationNotActive', (s) => setAppStatus(infra.db, s.anchor, 'SUSPENDED')],
  ['AccountDisabled', (s) => setAccountStatus(infra.db, s.accountId, 'DISABLED')],
  ['AccountDeleted', (s) => setAccountStatus(infra.db, s.accountId, 'DELETED')],
  ['ClaimConsentRequired', (s) => setClaims(infra.db, s.anchor, { email: 'REQUIRED' })],
  [
    'RequiredClaimDataMissing',
    async (s) => {
      await setClaims(infra.db, s.anchor, { staticAvatar: 'REQUIRED' });
      await grantClaim(infra.db, s.accountId, s.anchor, 'staticAvatar', 'GRANTED');
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
      const before = await sessionCount(infra, s.accountId);
      await cause(s);
      const res = await s.attempt();
      expect([res.status, res.body.reason]).toEqual([403, reason]);
      if (reason === 'ClaimConsentRequired' || reason === 'RequiredClaimDataMissing') {
        expect(Object.keys(res.body.claims)).toHaveLength(5);
        expect(res.body.errand.errandKey).toMatch(/^ernd_/);
      } else {
        expect(res.body).toEqual({ reason });
      }
      expect(await sessionCount(infra, s.accountId)).toBe(before);
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
  expect(await sessionCount(infra, s.accountId)).toBe(0);
});
