// The one-statement rotation (libs/issuance checked-rotations.ts): a refresh of a version this host made current
// rotates in one write that holds only while the state its checks passed on is unchanged. Every change that can
// refuse a refresh, made after such a rotation, must still refuse the next one exactly as the full read does, and
// consume nothing; a harmless change only sends the refresh down the full path.
import { checkedRotationOf } from '@svc/issuance';
import {
  grantClaim,
  linkSsoAuthority,
  revokeWorkload,
  setAccountStatus,
  setAppStatus,
  setClaims,
  setEmailDomainPolicy,
} from '@svc/provisioning';
import { postJson, provisionAccount, provisionApp, settableClock, uniqueDomain } from '@svc/testkit';
import { decodeJwt } from 'jose';
import { freshSession, issueFor, issueForWorkload, type SessionHarness, startSessionHost } from './support';

let h: SessionHarness;
const clock = settableClock();
beforeAll(async () => {
  h = await startSessionHost({ REFRESH_RETRY_WINDOW_MS: '1500', SESSION_CACHE_MS: '0' }, { clock });
});
beforeEach(() => clock.set(Date.now()));
afterAll(() => h.close());

const refresh = (refreshToken: string) => postJson(`${h.url}/refresh`, { refreshToken });

/** A first rotation through the full path, which leaves the checked state remembered; returns the new token. */
async function rotatedOnce(refreshToken: string): Promise<string> {
  const res = await refresh(refreshToken);
  expect(res.status).toBe(200);
  const sid = decodeJwt(res.body.refreshToken).sid as string;
  expect(checkedRotationOf(sid)?.version).toBe(decodeJwt(res.body.refreshToken).rotationVersion);
  return res.body.refreshToken;
}

/** A refresh that must take the one-statement path (no read: the remembered session values stay the same object). */
async function rotatedWithoutRead(refreshToken: string): Promise<string> {
  const sid = decodeJwt(refreshToken).sid as string;
  const before = checkedRotationOf(sid)?.session;
  expect(before).toBeDefined();
  const res = await refresh(refreshToken);
  expect(res.status).toBe(200);
  expect(checkedRotationOf(sid)?.session).toBe(before);
  return res.body.refreshToken;
}

async function versionOf(sid: string) {
  const s = await h.infra.db.session.findUniqueOrThrow({ where: { id: sid } });
  return [s.status, s.currentVersion];
}

describe('one-statement rotation', () => {
  it('rotates without reading while nothing changed, and hands out the same claims', async () => {
    const { issued } = await freshSession(h.infra);
    const second = await rotatedOnce(issued.refreshToken);
    const remembered = checkedRotationOf(issued.sid)!;
    const third = await refresh(second);
    expect(third.status).toBe(200);
    expect(decodeJwt(third.body.refreshToken).rotationVersion).toBe(3);
    expect(decodeJwt(third.body.accessToken).sub).toBe(decodeJwt(issued.accessToken).sub);
    expect(third.body.claims).toEqual(remembered.claims);
    // No read: the session values remembered are still the ones the first rotation read.
    expect(checkedRotationOf(issued.sid)!.session).toBe(remembered.session);
    expect(checkedRotationOf(issued.sid)!.version).toBe(3);
    expect(await versionOf(issued.sid)).toEqual(['ACTIVE', 3]);
    // A near-simultaneous retry of the one-statement rotation gets its pair, minted again from the row.
    const retry = await refresh(second);
    expect([retry.status, retry.body.refreshToken]).toEqual([200, third.body.refreshToken]);
  });

  it('still rotates in one statement after the application was reloaded unchanged, not after a change', async () => {
    const { issued, app } = await freshSession(h.infra);
    const second = await rotatedOnce(issued.refreshToken);
    h.deps.apps.clear();
    const third = await rotatedWithoutRead(second);
    await setClaims(h.infra.db, app.anchor, { email: 'REQUIRED' });
    h.deps.apps.clear();
    const gate = await refresh(third);
    expect([gate.status, gate.body.reason]).toEqual([403, 'ClaimConsentRequired']);
    expect(await versionOf(issued.sid)).toEqual(['ACTIVE', 3]);
  });

  it('takes the full path after a harmless change, and remembers the new state', async () => {
    const { issued, account } = await freshSession(h.infra);
    const second = await rotatedOnce(issued.refreshToken);
    const remembered = checkedRotationOf(issued.sid)!;
    await h.infra.db.account.update({ where: { id: account.id }, data: { givenName: 'Augusta' } });
    const third = await refresh(second);
    expect(third.status).toBe(200);
    expect(checkedRotationOf(issued.sid)!.session).not.toBe(remembered.session);
    expect(checkedRotationOf(issued.sid)!.snapshot.account?.givenName).toBe('Augusta');
  });

  it('refuses a disabled or deleted account, a suspended application', async () => {
    const disabled = await freshSession(h.infra);
    const t1 = await rotatedOnce(disabled.issued.refreshToken);
    await setAccountStatus(h.infra.db, disabled.account.id, 'DISABLED');
    const r1 = await refresh(t1);
    expect([r1.status, r1.body.reason]).toEqual([403, 'AccountDisabled']);
    expect(await versionOf(disabled.issued.sid)).toEqual(['ACTIVE', 2]);

    const deleted = await freshSession(h.infra);
    const t2 = await rotatedOnce(deleted.issued.refreshToken);
    await setAccountStatus(h.infra.db, deleted.account.id, 'DELETED');
    expect((await refresh(t2)).body.reason).toBe('AccountDeleted');

    const suspended = await freshSession(h.infra);
    const t3 = await rotatedOnce(suspended.issued.refreshToken);
    await setAppStatus(h.infra.db, suspended.app.anchor, 'SUSPENDED');
    h.deps.apps.clear();
    const r3 = await refresh(t3);
    expect([r3.status, r3.body.reason]).toEqual([403, 'ApplicationNotActive']);
    expect(await versionOf(suspended.issued.sid)).toEqual(['ACTIVE', 2]);
  });

  it('refuses when the account authority changed (disabled and enabled again): stale, family revoked', async () => {
    const s = await freshSession(h.infra);
    const t = await rotatedOnce(s.issued.refreshToken);
    await setAccountStatus(h.infra.db, s.account.id, 'DISABLED');
    await setAccountStatus(h.infra.db, s.account.id, 'ACTIVE');
    const r = await refresh(t);
    expect([r.status, r.body.reason]).toEqual([409, 'AuthorizationArtifactStale']);
    expect(await versionOf(s.issued.sid)).toEqual(['REVOKED', 2]);
  });

  it('refuses a revoked workload (stale) and a revoked or expired session', async () => {
    const owner = await provisionAccount(h.infra);
    const app = await provisionApp(h.infra);
    const { workload, issued } = await issueForWorkload(h.infra, app.anchor, 'AGENT', owner.id);
    const t = await rotatedWithoutRead(await rotatedOnce(issued.refreshToken));
    await revokeWorkload(h.infra.db, 'AGENT', workload.id);
    expect((await refresh(t)).body.reason).toBe('AuthorizationArtifactStale');

    const logout = await freshSession(h.infra);
    const t2 = await rotatedOnce(logout.issued.refreshToken);
    expect((await postJson(`${h.url}/logout`, { refreshToken: t2 })).status).toBe(200);
    expect((await refresh(t2)).body.reason).toBe('RefreshTokenRevoked');

    const expiring = await freshSession(h.infra);
    const t3 = await rotatedOnce(expiring.issued.refreshToken);
    const session = await h.infra.db.session.findUniqueOrThrow({ where: { id: expiring.issued.sid } });
    await h.infra.db.session.update({
      where: { id: session.id },
      data: { expiresAt: new Date(clock() + 1000) },
    });
    clock.advance(2000);
    const r3 = await refresh(t3);
    expect([r3.status, r3.body.reason]).toEqual([401, 'RefreshTokenExpired']);
  });

  it('applies the claim gate: a grant withdrawn, required profile data removed', async () => {
    const app = await provisionApp(h.infra);
    await setClaims(h.infra.db, app.anchor, { email: 'REQUIRED', staticAvatar: 'REQUIRED' });
    const account = await provisionAccount(h.infra, { picture: 'https://example.test/a.png' });
    await grantClaim(h.infra.db, account.id, app.anchor, 'email', 'GRANTED');
    await grantClaim(h.infra.db, account.id, app.anchor, 'staticAvatar', 'GRANTED');
    h.deps.apps.clear();
    const a = await issueFor(h.infra, app.anchor, { kind: 'ACCOUNT', accountId: account.id });
    const t1 = await rotatedWithoutRead(await rotatedOnce(a.refreshToken));
    await grantClaim(h.infra.db, account.id, app.anchor, 'email', 'DENIED');
    const denied = await refresh(t1);
    expect(denied.status).toBe(403);
    expect(denied.body.claims.email.state).toBe('DENIED');
    expect(await versionOf(a.sid)).toEqual(['ACTIVE', 3]);

    await grantClaim(h.infra.db, account.id, app.anchor, 'email', 'GRANTED');
    const t2 = await rotatedOnce(t1);
    await h.infra.db.account.update({ where: { id: account.id }, data: { picture: null } });
    const missing = await refresh(t2);
    expect([missing.status, missing.body.reason]).toEqual([403, 'RequiredClaimDataMissing']);
    expect(await versionOf(a.sid)).toEqual(['ACTIVE', 4]);
  });

  it('applies basic terms: a receipt withdrawn', async () => {
    const s = await freshSession(h.infra);
    const t = await rotatedOnce(s.issued.refreshToken);
    await h.infra.db.agreementReceipt.deleteMany({ where: { accountId: s.account.id } });
    const r = await refresh(t);
    expect([r.status, r.body.reason]).toEqual([403, 'LegalAgreementRequired']);
    expect(await versionOf(s.issued.sid)).toEqual(['ACTIVE', 2]);
  });

  it('applies the email-domain policy: BLOCK, a REQUIRE_SSO authority changed, an SSO link changed', async () => {
    const app = await provisionApp(h.infra);
    const blocked = uniqueDomain();
    const a = await provisionAccount(h.infra, { emailDomain: blocked });
    const sa = await issueFor(h.infra, app.anchor, { kind: 'ACCOUNT', accountId: a.id });
    const ta = await rotatedWithoutRead(await rotatedOnce(sa.refreshToken));
    await setEmailDomainPolicy(h.infra.db, { domain: blocked, policy: 'BLOCK' });
    expect((await refresh(ta)).body.reason).toBe('EmailDomainBlocked');
    expect(await versionOf(sa.sid)).toEqual(['ACTIVE', 3]);

    // Linked before signing in (a link changed after it is an authority change).
    const sso = uniqueDomain();
    await setEmailDomainPolicy(h.infra.db, { domain: sso, policy: 'REQUIRE_SSO', ssoAuthority: 'idp-a' });
    const b = await provisionAccount(h.infra, { emailDomain: sso });
    await linkSsoAuthority(h.infra.db, b.id, 'idp-a');
    const sb = await issueFor(h.infra, app.anchor, { kind: 'ACCOUNT', accountId: b.id });
    const tb = await rotatedWithoutRead(await rotatedOnce(sb.refreshToken));
    // The policy names another authority: SsoAuthorityConflict.
    await setEmailDomainPolicy(h.infra.db, { domain: sso, policy: 'REQUIRE_SSO', ssoAuthority: 'idp-c' });
    expect((await refresh(tb)).body.reason).toBe('SsoAuthorityConflict');
    expect(await versionOf(sb.sid)).toEqual(['ACTIVE', 3]);
    await setEmailDomainPolicy(h.infra.db, { domain: sso, policy: 'REQUIRE_SSO', ssoAuthority: 'idp-a' });
    const tb2 = await rotatedOnce(tb);
    // The account's link moved: an authority change, stale.
    await linkSsoAuthority(h.infra.db, b.id, 'idp-b');
    expect((await refresh(tb2)).body.reason).toBe('AuthorizationArtifactStale');
  });

  it('treats a remembered version presented again after the allowance as reuse', async () => {
    const { issued } = await freshSession(h.infra);
    const second = await rotatedOnce(issued.refreshToken);
    const third = await refresh(second);
    expect(third.status).toBe(200);
    clock.advance(5000);
    const reused = await refresh(second);
    expect([reused.status, reused.body.reason]).toEqual([401, 'RefreshTokenFamilyCompromised']);
    expect(await versionOf(issued.sid)).toEqual(['REVOKED', 3]);
    expect(checkedRotationOf(issued.sid)).toBeUndefined();
    expect((await refresh(third.body.refreshToken)).body.reason).toBe('RefreshTokenFamilyCompromised');
  });
});
