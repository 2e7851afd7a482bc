// POST /direct-issue/access-key, black-box over HTTP: formats, the opaque denial, the three layers for every
// principal kind, issuance refusals, claim gates, bad bodies, and tokens checked by an independent verifier.
import {
  addReturnRule,
  grantClaim,
  revokeAccessKey,
  setAccountStatus,
  setAppStatus,
  setClaims,
  setSectorStatus,
} from '@svc/provisioning';
import { expectTokenPair, postJson, provisionApp, whileSubjectHeld } from '@svc/testkit';
import { TYP } from '@svc/token-core';
import { createLocalJWKSet, decodeJwt, jwtVerify } from 'jose';
import {
  accessKeyFor,
  bumpAuthority,
  ensureTerms,
  sessionCount,
  settledAccount,
  useNativeHost,
} from './helpers';

const n = useNativeHost();
let url: string;

beforeAll(() => {
  url = `${n.host.url}/direct-issue/access-key`;
});

const ALL_METHODS = ['ACCESS_KEY_DIRECT', 'AGENT_ACCESS_KEY_DIRECT', 'AUTOMATION_ACCESS_KEY_DIRECT'];

async function fixture(methods = ALL_METHODS, kind: 'ACCOUNT' | 'AGENT' | 'AUTOMATION' = 'ACCOUNT') {
  const app = await provisionApp(n.infra, { methods });
  const account = await settledAccount(n.infra);
  const key = await accessKeyFor(n.infra, app.anchor, account.id, kind);
  const body = {
    applicationAnchor: app.anchor,
    accessKeyIdentifier: key.accessKeyIdentifier,
    accessKeySecret: key.accessKeySecret,
  };
  return { app, account, key, body };
}

async function verifyIndependently(applicationId: string, anchor: string, token: string, typ: string) {
  const { keys } = await n.infra.keyRing.jwks(applicationId);
  const jwks = createLocalJWKSet({ keys: keys as never });
  return jwtVerify(token, jwks, {
    algorithms: ['RS256'],
    audience: anchor,
    issuer: n.infra.issuance.issuer,
    typ,
  });
}

describe('success', () => {
  test('an account key issues an account token pair with no-store headers', async () => {
    const f = await fixture();
    const res = await postJson(url, f.body);
    expectTokenPair(res, ['accessToken', 'applicationAnchor', 'claims', 'refreshToken']);
    expect(res.body.applicationAnchor).toBe(f.app.anchor);
    const { payload, protectedHeader } = await verifyIndependently(
      f.app.applicationId,
      f.app.anchor,
      res.body.accessToken,
      TYP.accountAccess,
    );
    expect(protectedHeader.alg).toBe('RS256');
    expect(payload.act).toBeUndefined();
    expect(payload.sub).not.toContain(f.account.id);
    await verifyIndependently(f.app.applicationId, f.app.anchor, res.body.refreshToken, TYP.refresh);
  });

  test.each(['AGENT', 'AUTOMATION'] as const)(
    'a %s key issues a workload token with act.sub and the owner as sub',
    async (kind) => {
      const f = await fixture(ALL_METHODS, kind);
      const res = await postJson(url, f.body);
      expect(res.status).toBe(200);
      const { payload } = await verifyIndependently(
        f.app.applicationId,
        f.app.anchor,
        res.body.accessToken,
        TYP.workloadAccess,
      );
      expect(Object.keys(payload.act as object)).toEqual(['sub']);
      const actSub = (payload.act as { sub: string }).sub;
      expect(actSub).not.toBe(payload.sub);
      // The owner's own key in the same application yields the same top-level subject.
      const own = await accessKeyFor(n.infra, f.app.anchor, f.account.id, 'ACCOUNT');
      const mine = await postJson(url, {
        ...f.body,
        accessKeyIdentifier: own.accessKeyIdentifier,
        accessKeySecret: own.accessKeySecret,
      });
      expect(mine.status).toBe(200);
      expect(decodeJwt(mine.body.accessToken).sub).toBe(payload.sub);
      expect(JSON.stringify(payload)).not.toContain(f.key.workloadId!);
    },
  );
});

describe('formats are checked before any lookup', () => {
  const good = { id: 'acs_k_123e4567-e89b-42d3-a456-426614174000', secret: `acs_t_${'a'.repeat(64)}` };
  test.each([
    ['acs_k_123e4567-e89b-12d3-a456-426614174000', 'a version 1 UUID'],
    ['acs_k_123E4567-E89B-42D3-A456-426614174000', 'an upper-case UUID'],
    ['acs_k_123e4567e89b42d3a456426614174000', 'an unhyphenated UUID'],
    ['acs_x_123e4567-e89b-42d3-a456-426614174000', 'a wrong prefix'],
    ['', 'an empty string'],
  ])('identifier %s (%s) is InvalidAccessKeyIdentifier', async (id) => {
    const res = await postJson(url, {
      applicationAnchor: 'no-such-app',
      accessKeyIdentifier: id,
      accessKeySecret: good.secret,
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ reason: 'InvalidAccessKeyIdentifier' });
  });
  test.each([
    [`acs_t_${'A'.repeat(64)}`, 'upper-case hex'],
    [`acs_t_${'a'.repeat(63)}`, '63 hex'],
    [`acs_t_${'a'.repeat(65)}`, '65 hex'],
    [`acs_k_${'a'.repeat(64)}`, 'a wrong prefix'],
  ])('secret %s (%s) is InvalidAccessKeySecret', async (secret) => {
    const res = await postJson(url, {
      applicationAnchor: 'no-such-app',
      accessKeyIdentifier: good.id,
      accessKeySecret: secret,
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ reason: 'InvalidAccessKeySecret' });
  });
  test('an unknown anchor is ApplicationNotFound', async () => {
    const res = await postJson(url, {
      applicationAnchor: 'no-such-app-here',
      accessKeyIdentifier: good.id,
      accessKeySecret: good.secret,
    });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ reason: 'ApplicationNotFound' });
  });
});

describe('one opaque denial for every credential failure', () => {
  test('unknown, wrong secret, revoked and wrong application all answer the same', async () => {
    const f = await fixture();
    const other = await provisionApp(n.infra, { methods: ALL_METHODS });
    const revoked = await accessKeyFor(n.infra, f.app.anchor, f.account.id);
    await revokeAccessKey(n.infra.provisioning, revoked.accessKeyIdentifier, n.infra.issuance.clock);
    const attempts = [
      { ...f.body, accessKeyIdentifier: 'acs_k_00000000-0000-4000-8000-000000000000' },
      { ...f.body, accessKeySecret: `acs_t_${'0'.repeat(64)}` },
      {
        ...f.body,
        accessKeyIdentifier: revoked.accessKeyIdentifier,
        accessKeySecret: revoked.accessKeySecret,
      },
      { ...f.body, applicationAnchor: other.anchor },
    ];
    const answers = await Promise.all(attempts.map((b) => postJson(url, b)));
    for (const a of answers) {
      expect(a.status).toBe(401);
      expect(a.text).toBe('{"reason":"AccessKeyDirectDenied"}');
    }
    expect(await sessionCount(n.infra, f.account.id)).toBe(0);
  });
});

describe('authorization layers', () => {
  test.each([
    ['ACCOUNT', ['AGENT_ACCESS_KEY_DIRECT', 'AUTOMATION_ACCESS_KEY_DIRECT', 'PUBLIC_KEY_DIRECT']],
    ['AGENT', ['ACCESS_KEY_DIRECT', 'AUTOMATION_ACCESS_KEY_DIRECT', 'AGENT_PUBLIC_KEY_DIRECT']],
    ['AUTOMATION', ['ACCESS_KEY_DIRECT', 'AGENT_ACCESS_KEY_DIRECT', 'AUTOMATION_PUBLIC_KEY_DIRECT']],
  ] as const)('Layer 1: a %s key needs its exact method (others do not admit it)', async (kind, methods) => {
    const f = await fixture([...methods], kind);
    const res = await postJson(url, f.body);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ reason: 'Layer1Denied' });
  });

  test('Layer 2: a revoked agent is refused', async () => {
    const f = await fixture(ALL_METHODS, 'AGENT');
    await n.infra.db.workload.update({ where: { id: f.key.workloadId! }, data: { status: 'REVOKED' } });
    const res = await postJson(url, f.body);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ reason: 'Layer2Denied' });
  });

  test('Layer 2: an automation no longer owned by the key account is refused', async () => {
    const f = await fixture(ALL_METHODS, 'AUTOMATION');
    const other = await settledAccount(n.infra);
    await n.infra.db.workload.update({
      where: { id: f.key.workloadId! },
      data: { ownerAccountId: other.id },
    });
    const res = await postJson(url, f.body);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ reason: 'Layer2Denied' });
  });

  test('Layer 3 never refuses direct issue: an app with only DEVICE_CODE, or every other return rule, issues', async () => {
    const f = await fixture();
    await addReturnRule(n.infra.provisioning, f.app.anchor, 'DEVICE_CODE');
    expectTokenPair(await postJson(url, f.body), [
      'accessToken',
      'applicationAnchor',
      'claims',
      'refreshToken',
    ]);
    for (const method of ['CALLBACK', 'STATUS_POLL'])
      await addReturnRule(n.infra.provisioning, f.app.anchor, method);
    expect((await postJson(url, f.body)).status).toBe(200);
  });
});

describe('issuance refusals', () => {
  test('application SUSPENDED, DISABLED, or its sector disabled is ApplicationNotActive', async () => {
    for (const change of ['SUSPENDED', 'DISABLED', 'sector'] as const) {
      const f = await fixture();
      if (change === 'sector') await setSectorStatus(n.infra.provisioning, f.app.sectorId, 'DISABLED');
      else await setAppStatus(n.infra.provisioning, f.app.anchor, change);
      const res = await postJson(url, f.body);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ reason: 'ApplicationNotActive' });
    }
  });

  test.each([
    ['DISABLED', 'AccountDisabled'],
    ['DELETED', 'AccountDeleted'],
  ])('account %s is %s', async (status, reason) => {
    const f = await fixture();
    await setAccountStatus(n.infra.provisioning, f.account.id, status);
    const res = await postJson(url, f.body);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ reason });
  });

  test('an account without the current basic-terms receipt gets LegalAgreementRequired', async () => {
    const terms = await ensureTerms(n.infra);
    const f = await fixture();
    await n.infra.db.agreementReceipt.deleteMany({ where: { accountId: f.account.id } });
    const res = await postJson(url, f.body);
    expect(res.status).toBe(403);
    expect(res.body.reason).toBe('LegalAgreementRequired');
    expect(res.body.requiredRevision).toBeGreaterThanOrEqual(terms.revision);
    expect(res.body.termsUrl).toMatch(/^https?:\/\//);
    expect(res.body.confirmation).toBe(
      `I have read and accept the Basic Terms, revision ${res.body.requiredRevision}.`,
    );
    expect(Object.keys(res.body.agreement.locales).sort()).toEqual(['en-US', 'zh-CN']);
    // The confirmation sentence is in the request's language (Accept-Language, weights respected).
    const zhSentence = `我已阅读并接受基本条款（第 ${res.body.requiredRevision} 版）。`;
    for (const [acceptLanguage, sentence] of [
      ['zh-CN', zhSentence],
      ['zh-Hans-CN;q=0.9, fr', zhSentence],
      ['en;q=0.2, zh-TW;q=0.8', zhSentence],
      ['zh;q=0.2, en-GB;q=0.8', res.body.confirmation],
      ['fr-FR', res.body.confirmation],
    ]) {
      const localized = await postJson(url, f.body, { 'accept-language': acceptLanguage! });
      expect([localized.status, localized.body.reason]).toEqual([403, 'LegalAgreementRequired']);
      expect(localized.body.confirmation).toBe(sentence);
      expect(localized.body.agreement).toEqual(res.body.agreement);
    }
  });

  test('identity authority changing during the attempt is AuthorizationArtifactStale (409)', async () => {
    const f = await fixture();
    // The attempt is held in PostgreSQL after its key is proven and before its session is inserted.
    const res = await whileSubjectHeld(
      n.infra,
      f.app.sectorId,
      { kind: 'ACCOUNT', id: f.account.id },
      () => postJson(url, f.body),
      () => bumpAuthority(n.infra, f.account.id),
    );
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ reason: 'AuthorizationArtifactStale' });
    expect(await sessionCount(n.infra, f.account.id)).toBe(0);
    // Held the same way with nothing changed, the attempt succeeds: the hold itself refuses nothing.
    const g = await fixture();
    const unchanged = await whileSubjectHeld(
      n.infra,
      g.app.sectorId,
      { kind: 'ACCOUNT', id: g.account.id },
      () => postJson(url, g.body),
    );
    expect(unchanged.status).toBe(200);
  });
});

describe('claim gates', () => {
  test('a REQUIRED claim without consent is ClaimConsentRequired with the view and an errand', async () => {
    const f = await fixture();
    await setClaims(n.infra.provisioning, f.app.anchor, { email: 'REQUIRED', firstName: 'OPTIONAL' });
    const res = await postJson(url, f.body);
    expect(res.status).toBe(403);
    expect(res.body.reason).toBe('ClaimConsentRequired');
    expect(res.body.claims.email).toEqual({ requirement: 'REQUIRED', state: 'UNKNOWN' });
    expect(Object.keys(res.body.claims)).toHaveLength(5);
    expect(res.body.errand.errandKey).toMatch(/^ernd_/);
    expect(res.body.errand.url).toContain(res.body.errand.errandKey);
    expect(Date.parse(res.body.errand.expiresAt)).toBeGreaterThan(Date.now());
    expect(await sessionCount(n.infra, f.account.id)).toBe(0);
  });

  test('a granted REQUIRED claim with no data is RequiredClaimDataMissing', async () => {
    const f = await fixture();
    await setClaims(n.infra.provisioning, f.app.anchor, { staticAvatar: 'REQUIRED' });
    await grantClaim(n.infra.provisioning, f.account.id, f.app.anchor, 'staticAvatar', 'GRANTED');
    const res = await postJson(url, f.body);
    expect(res.status).toBe(403);
    expect(res.body.reason).toBe('RequiredClaimDataMissing');
    expect(res.body.claims.staticAvatar).toEqual({ requirement: 'REQUIRED', state: 'GRANTED' });
    expect(res.body.errand.errandKey).toMatch(/^ernd_/);
  });

  test('SYNTHETIC_ONLY and SYNTHETIC_FALLBACK never block', async () => {
    const f = await fixture();
    await setClaims(n.infra.provisioning, f.app.anchor, {
      email: 'SYNTHETIC_ONLY',
      staticAvatar: 'SYNTHETIC_FALLBACK',
      animatedAvatar: 'SYNTHETIC_FALLBACK',
    });
    const res = await postJson(url, f.body);
    expect(res.status).toBe(200);
    expect(res.body.claims.email).toEqual({ requirement: 'SYNTHETIC_ONLY', state: 'UNKNOWN' });
    expect(res.body.claims.staticAvatar).toEqual({ requirement: 'SYNTHETIC_FALLBACK', state: 'UNKNOWN' });
  });
});

describe('bad bodies get InvalidBody and change nothing', () => {
  test.each([
    ['not JSON', 'applicationAnchor=x', 'application/json'],
    ['truncated JSON', '{"applicationAnchor":"abc-app","accessKeyIdentifier":"acs_k_', 'application/json'],
    ['an array', '[]', 'application/json'],
    ['a scalar', '"hello"', 'application/json'],
    ['empty', '', 'application/json'],
    ['a form media type', '{"applicationAnchor":"abc"}', 'application/x-www-form-urlencoded'],
  ])('%s', async (_name, body, type) => {
    const res = await postJson(url, body, { 'content-type': type });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ reason: 'InvalidBody' });
  });

  test('extra, missing and wrong-typed members, and a malformed anchor', async () => {
    const f = await fixture();
    const bodies = [
      { ...f.body, principalKind: 'AGENT' },
      { accessKeyIdentifier: f.body.accessKeyIdentifier, accessKeySecret: f.body.accessKeySecret },
      { ...f.body, accessKeySecret: 42 },
      { ...f.body, accessKeyIdentifier: null },
      { ...f.body, applicationAnchor: ['x'] },
      { ...f.body, applicationAnchor: 'Bad_Anchor' },
    ];
    for (const b of bodies) {
      const res = await postJson(url, b);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ reason: 'InvalidBody' });
    }
    expect(await sessionCount(n.infra, f.account.id)).toBe(0);
  });

  test('an oversized body is refused (413 InvalidBody)', async () => {
    const f = await fixture();
    const res = await postJson(url, { ...f.body, padding: 'x'.repeat(100_000) });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ reason: 'InvalidBody' });
    expect(await sessionCount(n.infra, f.account.id)).toBe(0);
  });
});
