// POST /direct-issue/platform-ticket, black-box over HTTP against a Steam Web API stand-in: the call Steam
// receives, ticket formats, allow-listed app ids, single use, first sign-in linking (also racing replicas),
// the basic-terms flow with its refusals, and Steam failures.
import { createAgreementsStore } from '@svc/issuance/stores';
import { addReturnRule, addRule } from '@svc/provisioning';
import { postJson, provisionApp, type RunningTestHost, whileSubjectHeld } from '@svc/testkit';
import { TYP } from '@svc/token-core';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { bumpAuthority, ensureTerms, freshSteamId, freshTicket, useNativeHost } from './helpers';

const n = useNativeHost({ replicas: 1, config: { steamTimeoutMs: 500 } });
const APP_ID = 480;

beforeAll(async () => {
  await ensureTerms(n.infra);
});

async function fixture() {
  const app = await provisionApp(n.infra);
  await addRule(n.infra.provisioning, app.anchor, {
    method: 'PLATFORM_TICKET',
    platformAppIds: [BigInt(APP_ID), 999n],
  });
  return app;
}

const ticketUrl = (h: RunningTestHost) => `${h.url}/direct-issue/platform-ticket`;

/** POSTs a sign-in with `ticket` for `anchor` and the allow-listed platformAppId, to replica a unless told. */
const signInWith = (anchor: string, ticket: string, extra: Record<string, unknown> = {}, host = n.host) =>
  postJson(ticketUrl(host), {
    applicationAnchor: anchor,
    platformTicketHex: ticket,
    platformAppId: APP_ID,
    ...extra,
  });

async function acceptanceFor(locale: 'en-US' | 'zh-CN' = 'en-US') {
  const terms = (await createAgreementsStore(n.infra.db).currentTerms())!;
  return {
    revision: terms.revision,
    locale,
    contentSha256: terms.agreement.locales[locale].contentSha256,
    confirmed: true,
  };
}

/** Signs a new Steam user in through the terms flow; returns the steam id and the 200 answer. */
async function signIn(anchor: string, steamId = freshSteamId()) {
  const t1 = freshTicket();
  n.steam.users.set(t1, steamId);
  const first = await signInWith(anchor, t1);
  const t2 = freshTicket();
  n.steam.users.set(t2, steamId);
  const second = await signInWith(anchor, t2, { agreementAcceptance: await acceptanceFor() }, n.replica);
  return { steamId, first, second };
}

describe('first sign-in and the basic terms', () => {
  test('LegalAgreementRequired with the full agreement, then an accepted retry issues', async () => {
    const app = await fixture();
    const { steamId, first, second } = await signIn(app.anchor);
    expect(first.status).toBe(403);
    expect(first.body.reason).toBe('LegalAgreementRequired');
    const terms = (await createAgreementsStore(n.infra.db).currentTerms())!;
    expect(first.body.requiredRevision).toBe(terms.revision);
    expect(first.body.agreement.documentType).toBe('BASIC_TERMS');
    for (const locale of ['en-US', 'zh-CN'] as const) {
      const entry = first.body.agreement.locales[locale];
      expect(entry.contentSha256).toMatch(/^[0-9a-f]{64}$/);
      expect(entry.document.schemaVersion).toBe(1);
      expect(entry.document.sections.length).toBeGreaterThan(0);
    }
    expect(second.status).toBe(200);
    expect(second.headers.get('cache-control')).toBe('no-store');
    const { keys } = await n.infra.keyRing.jwks(app.applicationId);
    const { payload } = await jwtVerify(second.body.accessToken, createLocalJWKSet({ keys: keys as never }), {
      audience: app.anchor,
      typ: TYP.accountAccess,
    });
    const links = await n.infra.db.platformLink.findMany({
      where: { platform: 'STEAM', platformUserId: steamId },
    });
    expect(links).toHaveLength(1);
    const receipt = await n.infra.db.agreementReceipt.findFirst({
      where: { accountId: links[0]!.accountId },
    });
    expect(receipt).toMatchObject({ revision: terms.revision, locale: 'en-US', channel: 'PLATFORM_TICKET' });

    // A later sign-in needs no acceptance and yields the same subject.
    const t3 = freshTicket();
    n.steam.users.set(t3, steamId);
    const again = await signInWith(app.anchor, t3);
    expect(again.status).toBe(200);
    const { payload: p2 } = await jwtVerify(
      again.body.accessToken,
      createLocalJWKSet({ keys: keys as never }),
    );
    expect(p2.sub).toBe(payload.sub);
  });

  test('Steam is called as the contract says', async () => {
    const app = await fixture();
    const ticket = freshTicket().toUpperCase();
    const before = n.steam.calls.length;
    await signInWith(app.anchor, ticket);
    const call = n.steam.calls[before]!;
    expect(call.path).toBe('/ISteamUserAuth/AuthenticateUserTicket/v1/');
    expect(call.query).toEqual({
      key: 'test-publisher-key',
      appid: String(APP_ID),
      ticket: ticket.toLowerCase(),
      identity: 'service',
    });
  });

  test.each([
    ['another revision', { revision: 1_000_000 }, 409, 'LegalAgreementRevisionMismatch'],
    ['another content hash', { contentSha256: 'f'.repeat(64) }, 409, 'LegalAgreementRevisionMismatch'],
    ['the other locale hash', { locale: 'zh-CN' }, 409, 'LegalAgreementRevisionMismatch'],
    ['confirmed: false', { confirmed: false }, 403, 'LegalAgreementRequired'],
  ] as const)('an acceptance with %s is refused and records nothing', async (_n, change, status, reason) => {
    const app = await fixture();
    const steamId = freshSteamId();
    const t = freshTicket();
    n.steam.users.set(t, steamId);
    const res = await signInWith(app.anchor, t, {
      agreementAcceptance: { ...(await acceptanceFor('en-US')), ...change },
    });
    expect(res.status).toBe(status);
    expect(res.body.reason).toBe(reason);
    const link = await n.infra.db.platformLink.findFirst({ where: { platformUserId: steamId } });
    expect(await n.infra.db.agreementReceipt.count({ where: { accountId: link!.accountId } })).toBe(0);
  });

  test('two replicas racing on the first sign-in of one Steam user create one account', async () => {
    const app = await fixture();
    const steamId = freshSteamId();
    const tickets = [freshTicket(), freshTicket(), freshTicket(), freshTicket()];
    for (const t of tickets) n.steam.users.set(t, steamId);
    const acceptance = await acceptanceFor();
    const results = await Promise.all(
      tickets.map((t, i) =>
        signInWith(app.anchor, t, { agreementAcceptance: acceptance }, i % 2 ? n.replica : n.host),
      ),
    );
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(
      await n.infra.db.platformLink.count({ where: { platform: 'STEAM', platformUserId: steamId } }),
    ).toBe(1);
  });
});

describe('single use and formats', () => {
  test('a ticket presented again is ReplayProtectionAlreadySeen (409), also on the other replica', async () => {
    const app = await fixture();
    const t = freshTicket();
    const body = { applicationAnchor: app.anchor, platformTicketHex: t, platformAppId: APP_ID };
    const first = await postJson(ticketUrl(n.host), body);
    expect(first.body.reason).toBe('LegalAgreementRequired');
    const again = await postJson(ticketUrl(n.replica), { ...body, platformTicketHex: t.toUpperCase() });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ reason: 'ReplayProtectionAlreadySeen' });
  });

  test.each([
    ['one hex digit', 'a'],
    ['an odd count', 'abc'],
    ['non-hex', 'zz'],
    ['empty', ''],
    ['5122 digits', 'ab'.repeat(2561)],
  ])('a ticket of %s is InvalidPlatformTicket', async (_n, hex) => {
    const app = await fixture();
    const before = n.steam.calls.length;
    const res = await signInWith(app.anchor, hex);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ reason: 'InvalidPlatformTicket' });
    expect(n.steam.calls.length).toBe(before);
  });

  test('5120 digits are accepted', async () => {
    const app = await fixture();
    const res = await signInWith(app.anchor, freshTicket().slice(0, 16) + 'ab'.repeat(2552));
    expect(res.body.reason).toBe('LegalAgreementRequired');
  });

  test('wrong-typed or extra members are InvalidBody', async () => {
    const app = await fixture();
    const good = { applicationAnchor: app.anchor, platformTicketHex: freshTicket(), platformAppId: APP_ID };
    for (const bad of [
      { ...good, platformAppId: '0480' },
      { ...good, platformAppId: true },
      { ...good, platformAppId: 0 },
      { ...good, platformAppId: 1.5 },
      { ...good, platformTicketHex: 1234 },
      { ...good, steamId: '7656' },
      {
        ...good,
        agreementAcceptance: { revision: 1, locale: 'fr-FR', contentSha256: 'a'.repeat(64), confirmed: true },
      },
      { ...good, agreementAcceptance: { revision: 1, locale: 'en-US', contentSha256: 'a'.repeat(64) } },
    ]) {
      const res = await postJson(ticketUrl(n.host), bad);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ reason: 'InvalidBody' });
    }
  });
});

describe('policy and Steam answers', () => {
  test('a platform app id not on the allow-list, or no PLATFORM_TICKET rule, is Layer1Denied', async () => {
    const app = await fixture();
    const res = await postJson(ticketUrl(n.host), {
      applicationAnchor: app.anchor,
      platformTicketHex: freshTicket(),
      platformAppId: 481,
    });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ reason: 'Layer1Denied' });
    const bare = await provisionApp(n.infra, { methods: ['ACCESS_KEY_DIRECT'] });
    const res2 = await signInWith(bare.anchor, freshTicket());
    expect(res2.body).toEqual({ reason: 'Layer1Denied' });
  });

  test('Layer 3 never refuses direct issue: an app with only a DEVICE_CODE return rule issues', async () => {
    const app = await fixture();
    await addReturnRule(n.infra.provisioning, app.anchor, 'DEVICE_CODE');
    const { second } = await signIn(app.anchor);
    expect(second.status).toBe(200);
  });

  test('unknown anchor is ApplicationNotFound', async () => {
    const res = await signInWith('no-such-anchor-x', 'abcd');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ reason: 'ApplicationNotFound' });
  });

  test('a ticket Steam rejects, or a publisher-banned user, is PlatformTicketRejected', async () => {
    const app = await fixture();
    for (const mode of ['invalid', 'banned'] as const) {
      const t = freshTicket();
      n.steam.modes.set(t, mode);
      const res = await signInWith(app.anchor, t);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ reason: 'PlatformTicketRejected' });
    }
  });

  test('Steam failing or timing out is 503 and leaves the ticket usable', async () => {
    const app = await fixture();
    for (const mode of ['http500', 'hang'] as const) {
      const t = freshTicket();
      n.steam.modes.set(t, mode);
      const body = { applicationAnchor: app.anchor, platformTicketHex: t, platformAppId: APP_ID };
      const res = await postJson(ticketUrl(n.host), body);
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ reason: 'TemporarilyUnavailable' });
      expect(res.headers.get('retry-after')).toBeTruthy();
      n.steam.modes.delete(t);
      const retry = await postJson(ticketUrl(n.replica), body);
      expect(retry.body.reason).toBe('LegalAgreementRequired');
    }
  });

  test('identity authority changing mid-attempt is AuthorizationArtifactStale (409)', async () => {
    const app = await fixture();
    const { steamId, second } = await signIn(app.anchor);
    expect(second.status).toBe(200);
    const link = await n.infra.db.platformLink.findFirstOrThrow({ where: { platformUserId: steamId } });
    // A second application (its own sector): the attempt is held in PostgreSQL after Steam vouched for the
    // ticket and before the session is inserted, while the account's authority changes.
    const other = await fixture();
    const t = freshTicket();
    n.steam.users.set(t, steamId);
    const res = await whileSubjectHeld(
      n.infra,
      other.sectorId,
      { kind: 'ACCOUNT', id: link.accountId },
      () => signInWith(other.anchor, t),
      () => bumpAuthority(n.infra, link.accountId),
    );
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ reason: 'AuthorizationArtifactStale' });
    // The same attempt without the change issues.
    const retry = freshTicket();
    n.steam.users.set(retry, steamId);
    expect((await signInWith(other.anchor, retry)).status).toBe(200);
  });
});
