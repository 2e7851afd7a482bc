// POST /refresh on the session host: rotation, retry allowance, reuse detection and every rejection reason.
import {
  createApplicationCache,
  REFRESH_TYPS,
  rotateRefreshToken,
  verifyPresentedToken,
} from '@svc/issuance';
import { createApplicationsStore } from '@svc/issuance/stores';
import { setAccountStatus, setAppStatus, setClaims } from '@svc/provisioning';
import {
  alertSeries,
  expectTokenPair,
  postJson,
  provisionAccount,
  provisionApp,
  scrapeCounter,
  settableClock,
  tamper,
} from '@svc/testkit';
import { mintRefreshToken } from '@svc/token-core';
import { decodeJwt } from 'jose';
import { freshSession, issueFor, issueForWorkload, type SessionHarness, startSessionHost } from './support';

/** The authentication method of connect's sign-ins (its usernameless passkey), whose sessions connect rotates. */
const CONNECT_METHOD = 'PASSKEY_USERNAMELESS';

let h: SessionHarness;
/** The host's clock: set to the real time before each test, standing still unless the test moves it. */
const clock = settableClock();
beforeAll(async () => {
  h = await startSessionHost({ REFRESH_RETRY_WINDOW_MS: '1500', SESSION_CACHE_MS: '0' }, { clock });
});
beforeEach(() => clock.set(Date.now()));
afterAll(() => h.close());

const refresh = (refreshToken: string) => postJson(`${h.url}/refresh`, { refreshToken });

describe('POST /refresh', () => {
  it('rotates: same sid, fresh jti, rotationVersion + 1, five-key claims, no-store', async () => {
    const { issued } = await freshSession(h.infra);
    const res = await refresh(issued.refreshToken);
    expectTokenPair(res, ['accessToken', 'claims', 'refreshToken']);
    const before = decodeJwt(issued.refreshToken);
    const after = decodeJwt(res.body.refreshToken);
    expect(after.sid).toBe(before.sid);
    expect(after.jti).not.toBe(before.jti);
    expect(after.rotationVersion).toBe(2);
    expect(decodeJwt(res.body.accessToken).sid).toBe(before.sid);
    const again = await refresh(res.body.refreshToken);
    expect(again.status).toBe(200);
    expect(decodeJwt(again.body.refreshToken).rotationVersion).toBe(3);
  });

  it('gives a near-simultaneous retry the pair already issued', async () => {
    const { issued } = await freshSession(h.infra);
    const first = await refresh(issued.refreshToken);
    const retry = await refresh(issued.refreshToken);
    expect(retry.status).toBe(200);
    expect(retry.body.refreshToken).toBe(first.body.refreshToken);
    expect(retry.body.accessToken).toBe(first.body.accessToken);
    // The pair handed out again is the live one.
    expect((await refresh(first.body.refreshToken)).status).toBe(200);
  });

  it('attack: a version consumed by a strict rotation (connect) is reuse here, inside the allowance too', async () => {
    // A connect-issued session, rotated the way connect's /refresh does it: the issuance core with no allowance.
    const app = await provisionApp(h.infra);
    const account = await provisionAccount(h.infra, {});
    const issued = await issueFor(
      h.infra,
      app.anchor,
      { kind: 'ACCOUNT', accountId: account.id },
      CONNECT_METHOD,
    );
    const rotation = { ...h.infra.issuance, redis: h.infra.redis };
    const apps = createApplicationCache(h.infra.issuance.ports.applications, 0, clock);
    const presented = await verifyPresentedToken(rotation, apps, issued.refreshToken, { typ: REFRESH_TYPS });
    const victim = await rotateRefreshToken(rotation, {
      ...presented,
      presentedToken: issued.refreshToken,
      retryAllowanceMs: 0,
      authMethod: CONNECT_METHOD,
    });
    expect(victim.kind).toBe('rotated');
    // The thief presents the consumed token to the session host at once, well inside its 1500 ms allowance: it is
    // not handed the victim's new pair, and the family is revoked.
    const thief = await refresh(issued.refreshToken);
    expect([thief.status, thief.body.reason]).toEqual([401, 'RefreshTokenFamilyCompromised']);
    expect(JSON.stringify(thief.body)).not.toContain('accessToken');
    if (victim.kind !== 'rotated') return;
    expect((await refresh(victim.refreshToken)).body.reason).toBe('RefreshTokenFamilyCompromised');
    const intro = await postJson(`${h.url}/introspect`, { accessToken: victim.accessToken });
    expect(intro.body.status).toBe('revoked');
  });

  it('a rotation made here grants its retry to this host only: a strict rotation of the retry is reuse', async () => {
    const { app, issued } = await freshSession(h.infra);
    const first = await refresh(issued.refreshToken);
    expect(first.status).toBe(200);
    const session = await h.infra.db.session.findUniqueOrThrow({ where: { id: issued.sid } });
    // The window is the rotation's instant plus this host's allowance, on the host's clock.
    expect(session.retryUntil?.getTime()).toBe(session.rotatedAt!.getTime() + 1500);
    // The same consumed token at a strict host (no allowance) is reuse, whatever the window.
    const rotation = { ...h.infra.issuance, redis: h.infra.redis };
    const apps = createApplicationCache(h.infra.issuance.ports.applications, 0, clock);
    const presented = await verifyPresentedToken(rotation, apps, issued.refreshToken, { typ: REFRESH_TYPS });
    expect(presented.app.anchor).toBe(app.anchor);
    const strict = await rotateRefreshToken(rotation, {
      ...presented,
      presentedToken: issued.refreshToken,
      retryAllowanceMs: 0,
    });
    expect(strict.kind).toBe('family_compromised');
  });

  it('treats a token two versions back as reuse even inside the allowance', async () => {
    const { issued } = await freshSession(h.infra);
    const second = await refresh(issued.refreshToken);
    expect((await refresh(second.body.refreshToken)).status).toBe(200);
    const stale = await refresh(issued.refreshToken);
    expect([stale.status, stale.body.reason]).toEqual([401, 'RefreshTokenFamilyCompromised']);
    const session = await h.infra.db.session.findUniqueOrThrow({ where: { id: issued.sid } });
    expect([session.status, session.currentVersion]).toEqual(['REVOKED', 3]);
  });

  it('revokes the whole family when a consumed version is reused after the allowance', async () => {
    const { issued } = await freshSession(h.infra);
    const first = await refresh(issued.refreshToken);
    // Past the 1500 ms allowance by the host's clock, without waiting for it.
    clock.advance(1700);
    const reuse = await refresh(issued.refreshToken);
    expect(reuse.status).toBe(401);
    expect(reuse.body.reason).toBe('RefreshTokenFamilyCompromised');
    const latest = await refresh(first.body.refreshToken);
    expect(latest.status).toBe(401);
    expect(latest.body.reason).toBe('RefreshTokenFamilyCompromised');
    const intro = await postJson(`${h.url}/introspect`, { accessToken: first.body.accessToken });
    expect(intro.body.status).toBe('revoked');
  });

  it("counts on the host's /metrics: rotations and retries as rotated, reuse on the series the alert reads", async () => {
    const compromise = alertSeries('RefreshFamilyCompromisedSpike');
    const counts = async () => ({
      alerted: await scrapeCounter(h.deps.metrics, compromise.name, compromise.labels),
      rotated: await scrapeCounter(h.deps.metrics, 'refresh_outcomes_total', { outcome: 'rotated' }),
      issued: await scrapeCounter(h.deps.metrics, 'tokens_issued_total', { method: 'refresh' }),
      invalidType: await scrapeCounter(h.deps.metrics, 'refresh_outcomes_total', {
        outcome: 'RefreshTokenInvalidType',
      }),
    });
    const { issued } = await freshSession(h.infra);
    const before = await counts();
    const first = await refresh(issued.refreshToken);
    expect((await refresh(issued.refreshToken)).body.refreshToken).toBe(first.body.refreshToken);
    expect((await refresh(issued.accessToken)).body.reason).toBe('RefreshTokenInvalidType');
    const counted = {
      ...before,
      rotated: before.rotated + 2,
      issued: before.issued + 2,
      invalidType: before.invalidType + 1,
    };
    expect(await counts()).toEqual(counted);
    clock.advance(1700);
    expect((await refresh(issued.refreshToken)).body.reason).toBe('RefreshTokenFamilyCompromised');
    expect(await counts()).toEqual({ ...counted, alerted: before.alerted + 1 });
  });

  it('rejects malformed, wrong-type, badly signed and unknown tokens with their reasons', async () => {
    const { issued } = await freshSession(h.infra);
    expect((await refresh('not-a-jwt')).body.reason).toBe('RefreshTokenInvalid');
    expect((await refresh(issued.accessToken)).body.reason).toBe('RefreshTokenInvalidType');
    const [hd, pl, sig] = issued.refreshToken.split('.');
    const tampered = `${hd}.${pl}.${tamper(sig!)}`;
    const bad = await refresh(tampered);
    expect(bad.status).toBe(401);
    expect(bad.body.reason).toBe('RefreshTokenInvalidSignature');
    expect(bad.body.message).toEqual(expect.any(String));
  });

  it('reports an expired refresh token as RefreshTokenExpired', async () => {
    const { app, issued } = await freshSession(h.infra);
    const application = await createApplicationsStore(h.infra.db).loadApplication({ anchor: app.anchor });
    const signer = await h.infra.keyRing.signer(application!.id);
    const claims = decodeJwt(issued.refreshToken);
    const old = await mintRefreshToken(signer!, {
      issuer: String(claims.iss),
      audience: app.anchor,
      sid: String(claims.sid),
      jti: String(claims.jti),
      iat: Math.floor(Date.now() / 1000) - 200_000,
      ttlSeconds: 86_400,
      rotationVersion: 1,
    });
    const res = await refresh(old.token);
    expect(res.status).toBe(401);
    expect(res.body.reason).toBe('RefreshTokenExpired');
  });

  it('reports revoked and suspended sessions', async () => {
    const { issued } = await freshSession(h.infra);
    expect((await postJson(`${h.url}/logout`, { refreshToken: issued.refreshToken })).body).toEqual({
      revoked: true,
    });
    expect((await refresh(issued.refreshToken)).body.reason).toBe('RefreshTokenRevoked');
    const other = await freshSession(h.infra);
    await h.infra.db.session.update({ where: { id: other.issued.sid }, data: { status: 'SUSPENDED' } });
    const res = await refresh(other.issued.refreshToken);
    expect(res.status).toBe(401);
    expect(res.body.reason).toBe('RefreshTokenSuspended');
  });

  it('refuses when the account or application no longer qualifies, and consumes nothing', async () => {
    const disabled = await freshSession(h.infra);
    await setAccountStatus(h.infra.provisioning, disabled.account.id, 'DISABLED');
    const r1 = await refresh(disabled.issued.refreshToken);
    expect([r1.status, r1.body.reason]).toEqual([403, 'AccountDisabled']);
    const kept = await h.infra.db.session.findUniqueOrThrow({ where: { id: disabled.issued.sid } });
    expect([kept.status, kept.currentVersion]).toEqual(['ACTIVE', 1]);
    // Enabling the account again is another change of its identity authority: see authority.test.ts.

    const deleted = await freshSession(h.infra);
    await setAccountStatus(h.infra.provisioning, deleted.account.id, 'DELETED');
    expect((await refresh(deleted.issued.refreshToken)).body.reason).toBe('AccountDeleted');

    const suspendedApp = await freshSession(h.infra);
    await setAppStatus(h.infra.provisioning, suspendedApp.app.anchor, 'SUSPENDED');
    h.deps.apps.clear();
    const r3 = await refresh(suspendedApp.issued.refreshToken);
    expect([r3.status, r3.body.reason]).toEqual([403, 'ApplicationNotActive']);
  });

  it('applies the claim gate and basic terms on refresh', async () => {
    const s = await freshSession(h.infra);
    await setClaims(h.infra.provisioning, s.app.anchor, { email: 'REQUIRED' });
    h.deps.apps.clear();
    const gate = await refresh(s.issued.refreshToken);
    expect(gate.status).toBe(403);
    expect(gate.body.reason).toBe('ClaimConsentRequired');
    expect(gate.body.claims.email).toEqual({ requirement: 'REQUIRED', state: 'UNKNOWN' });
    expect(gate.body.errand.errandKey).toMatch(/^ernd_/);

    const m = await freshSession(h.infra);
    await setClaims(h.infra.provisioning, m.app.anchor, { staticAvatar: 'REQUIRED' });
    await h.infra.db.claimGrant.create({
      data: {
        accountId: m.account.id,
        applicationId: m.app.applicationId,
        claim: 'staticAvatar',
        state: 'GRANTED',
      },
    });
    h.deps.apps.clear();
    expect((await refresh(m.issued.refreshToken)).body.reason).toBe('RequiredClaimDataMissing');

    const t = await freshSession(h.infra);
    await h.infra.db.agreementReceipt.deleteMany({ where: { accountId: t.account.id } });
    const terms = await refresh(t.issued.refreshToken);
    expect(terms.status).toBe(403);
    expect(terms.body.reason).toBe('LegalAgreementRequired');
    expect(terms.body.agreement.locales['zh-CN'].contentSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(terms.body.confirmation).toBe(
      `I have read and accept the Basic Terms, revision ${terms.body.requiredRevision}.`,
    );
    // The confirmation sentence follows the request's Accept-Language.
    const zh = await postJson(
      `${h.url}/refresh`,
      { refreshToken: t.issued.refreshToken },
      { 'accept-language': 'zh-CN,zh;q=0.9,en;q=0.8' },
    );
    expect([zh.status, zh.body.reason]).toEqual([403, 'LegalAgreementRequired']);
    expect(zh.body.confirmation).toBe(`我已阅读并接受基本条款（第 ${terms.body.requiredRevision} 版）。`);
  });

  it('emits workload access tokens on workload sessions', async () => {
    const { app } = await freshSession(h.infra);
    const owner = await provisionAccount(h.infra);
    const { issued } = await issueForWorkload(h.infra, app.anchor, 'AGENT', owner.id);
    const res = await refresh(issued.refreshToken);
    expect(res.status).toBe(200);
    const access = decodeJwt(res.body.accessToken);
    expect(access.act).toEqual({ sub: issued.actorSubject });
    expect(access.sub).toBe(issued.subject);
    expect(decodeJwt(res.body.refreshToken).act).toBeUndefined();
  });

  it('answers InvalidBody for every kind of bad body and changes nothing', async () => {
    const { issued } = await freshSession(h.infra);
    const cases: [string, Record<string, string>][] = [
      ['', {}],
      ['{"refreshToken":', {}],
      ['[]', {}],
      ['"x"', {}],
      ['{}', {}],
      [JSON.stringify({ refreshToken: 42 }), {}],
      [JSON.stringify({ refreshToken: issued.refreshToken, extra: 1 }), {}],
      [JSON.stringify({ refreshToken: issued.refreshToken }), { 'content-type': 'text/plain' }],
    ];
    for (const [body, headers] of cases) {
      const res = await postJson(`${h.url}/refresh`, body, headers);
      expect([res.status, res.body?.reason]).toEqual([400, 'InvalidBody']);
      expect(res.text).not.toMatch(/at .*\.ts/);
    }
    const huge = await postJson(`${h.url}/refresh`, JSON.stringify({ refreshToken: 'x'.repeat(70_000) }));
    expect([huge.status, huge.body?.reason]).toEqual([413, 'InvalidBody']);
    const session = await h.infra.db.session.findUniqueOrThrow({ where: { id: issued.sid } });
    expect(session.currentVersion).toBe(1);
    expect(session.status).toBe('ACTIVE');
  });

  it('answers AuthorizationArtifactStale when a workload session lost its authority', async () => {
    const { app } = await freshSession(h.infra);
    const owner = await provisionAccount(h.infra);
    const { workload: w, issued } = await issueForWorkload(h.infra, app.anchor, 'AGENT', owner.id);
    await h.infra.db.workload.update({ where: { id: w.id }, data: { generation: 2 } });
    const res = await refresh(issued.refreshToken);
    expect([res.status, res.body.reason]).toEqual([409, 'AuthorizationArtifactStale']);
  });
});
