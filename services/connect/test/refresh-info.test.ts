// Connect POST /refresh (strict rotation, family revocation, three-key view) and POST /info (localized names).
import { issueSession } from '@svc/issuance';
import { createApplicationsStore } from '@svc/issuance/stores';
import { grantClaim, setAccountStatus, setClaims } from '@svc/provisioning';
import {
  type Backend,
  openInfra,
  postJson,
  provisionAccount,
  provisionApp,
  provisionBackend,
  settableClock,
  type TestInfra,
  waitUntil,
} from '@svc/testkit';
import { decodeJwt } from 'jose';
import { admin } from '../../../tools/admin/test/run-admin';
import { acceptCurrentTerms, realizeFor, startConnect, useConnectPair } from './helpers';

const pair = useConnectPair({
  claims: { email: 'SYNTHETIC_FALLBACK', firstName: 'OPTIONAL' },
});

async function signedIn(
  backend: Backend = pair.backend,
): Promise<{ accessToken: string; refreshToken: string; accountId: string }> {
  const est = await backend.establish({});
  const account = await provisionAccount(pair.infra);
  await acceptCurrentTerms(pair.infra, account.id);
  const confirmationKey = await realizeFor(pair.infra, est.body.exposureKey, account.id);
  const { exposureKey, hiddenKey } = est.body;
  const res = await postJson(`${pair.host.url}/redeem`, { exposureKey, hiddenKey, confirmationKey });
  expect(res.status).toBe(200);
  return { ...res.body, accountId: account.id };
}

const refresh = (refreshToken: string, url = pair.host.url) => postJson(`${url}/refresh`, { refreshToken });

/** How many backends wait, directly or in the queue behind another waiter, on the transaction of `holder`. */
async function waitingBehind(infra: TestInfra, holder: number): Promise<number> {
  const rows = await infra.db.$queryRaw<{ pid: number; blockers: number[] }[]>`
    SELECT pid, pg_blocking_pids(pid) AS blockers FROM pg_stat_activity WHERE datname = current_database()`;
  const behind = new Set([holder]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const r of rows) {
      if (!behind.has(r.pid) && r.blockers.some((b) => behind.has(b))) {
        behind.add(r.pid);
        grew = true;
      }
    }
  }
  return behind.size - 1;
}

describe('POST /refresh (connect)', () => {
  test('rotates: new pair, same sid, rotationVersion + 1, three-key view with SYNTHETIC', async () => {
    const s = await signedIn();
    const res = await refresh(s.refreshToken);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(Object.keys(res.body).sort()).toEqual(['accessToken', 'claims', 'refreshToken']);
    expect(res.body.claims).toEqual({
      email: { requirement: 'SYNTHETIC', state: 'UNKNOWN' },
      firstName: { requirement: 'OPTIONAL', state: 'UNKNOWN' },
      lastName: { requirement: 'OFF', state: 'UNKNOWN' },
    });
    const before = decodeJwt(s.refreshToken);
    const after = decodeJwt(res.body.refreshToken);
    expect(after.sid).toBe(before.sid);
    expect(after.rotationVersion).toBe(2);
    expect(after.jti).not.toBe(before.jti);
    expect((await refresh(res.body.refreshToken)).status).toBe(200);
  });

  test('reuse of a consumed token revokes the family (RefreshTokenFamilyCompromised)', async () => {
    const s = await signedIn();
    const next = await refresh(s.refreshToken);
    const reuse = await refresh(s.refreshToken);
    expect(reuse.status).toBe(401);
    expect(reuse.body).toEqual({ reason: 'RefreshTokenFamilyCompromised' });
    const after = await refresh(next.body.refreshToken);
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ reason: 'RefreshTokenFamilyCompromised' });
  });

  test('a race lost across two replicas is RefreshTokenRotationRaceLost and revokes the family, every time', async () => {
    // Two replicas with pools of their own (no shared gather), both past their read before either writes: a test
    // transaction holds the session row locked until both rotations wait on it, then lets them go. One wins the
    // conditional write; the other finds the version moved and has lost the race.
    const own = openInfra();
    const other = await startConnect(own);
    try {
      const s = await signedIn();
      const sid = String(decodeJwt(s.refreshToken).sid);
      let release!: () => void;
      const released = new Promise<void>((r) => {
        release = r;
      });
      let holder = 0;
      const holding = pair.infra.db.$transaction(
        async (tx) => {
          holder = (await tx.$queryRaw<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`)[0]!.pid;
          await tx.$queryRaw`SELECT id FROM sessions WHERE id = ${sid} FOR UPDATE`;
          await released;
        },
        { timeout: 60_000, maxWait: 10_000 },
      );
      await waitUntil(async () => holder !== 0);
      const racing = Promise.all([
        refresh(s.refreshToken, pair.host.url),
        refresh(s.refreshToken, other.url),
      ]);
      // Both rotations wait behind the held lock (the second queues behind the first on the row).
      await waitUntil(async () => (await waitingBehind(own, holder)) === 2);
      release();
      await holding;
      const [a, b] = await racing;
      expect([a.status, b.status].sort()).toEqual([200, 401]);
      const loser = a.status === 401 ? a : b;
      expect(loser.body).toEqual({ reason: 'RefreshTokenRotationRaceLost' });
      const winner = a.status === 200 ? a : b;
      const after = await refresh(winner.body.refreshToken);
      expect(after.status).toBe(401);
      expect(after.body).toEqual({ reason: 'RefreshTokenFamilyCompromised' });
    } finally {
      await other.close();
      await own.close();
    }
  });

  test('RefreshTokenNotFound for garbage, an access token, or a session another host issued', async () => {
    const s = await signedIn();
    expect((await refresh('not-a-token')).body).toEqual({ reason: 'RefreshTokenNotFound' });
    expect((await refresh(s.accessToken)).body).toEqual({ reason: 'RefreshTokenNotFound' });
    const direct = await provisionApp(pair.infra, { methods: ['ACCESS_KEY_DIRECT'] });
    const application = (await createApplicationsStore(pair.infra.db).loadApplication({
      anchor: direct.anchor,
    }))!;
    const account = await provisionAccount(pair.infra);
    await acceptCurrentTerms(pair.infra, account.id);
    const issued = await issueSession(pair.infra.issuance, {
      application,
      principal: { kind: 'ACCOUNT', accountId: account.id },
      authMethod: 'ACCESS_KEY_DIRECT',
    });
    const res = await refresh(issued.refreshToken);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ reason: 'RefreshTokenNotFound' });
    expect((await postJson(`${pair.host.url}/refresh`, {})).body).toEqual({ reason: 'InvalidBody' });
  });

  test('RefreshTokenSuspended (sessions suspend), RefreshTokenExpired and AccountDisabled', async () => {
    const s = await signedIn();
    const sid = String(decodeJwt(s.refreshToken).sid);
    // Suspended by the operator's command, as in production (no SQL).
    expect((await admin(['sessions', 'suspend', '--sid', sid])).json).toEqual({ sid, status: 'suspended' });
    expect((await refresh(s.refreshToken)).body).toEqual({ reason: 'RefreshTokenSuspended' });
    await pair.infra.db.session.update({
      where: { id: sid },
      data: { status: 'ACTIVE', expiresAt: new Date(Date.now() - 1) },
    });
    expect((await refresh(s.refreshToken)).body).toEqual({ reason: 'RefreshTokenExpired' });
    const d = await signedIn();
    await pair.infra.db.account.update({ where: { id: d.accountId }, data: { status: 'DISABLED' } });
    const res = await refresh(d.refreshToken);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ reason: 'AccountDisabled' });
  }, 60_000);

  test('RefreshTokenExpired for a session past its expiry by the host clock (no database write)', async () => {
    const s = await signedIn();
    // A replica whose clock is 400 days on (past any refresh lifetime): the token's own exp still holds for the
    // verifier (real time), the session has expired by the host's clock.
    const later = await startConnect(pair.infra, { clock: settableClock(Date.now() + 400 * 86_400_000) });
    try {
      const res = await refresh(s.refreshToken, later.url);
      expect([res.status, res.body]).toEqual([401, { reason: 'RefreshTokenExpired' }]);
    } finally {
      await later.close();
    }
    const session = await pair.infra.db.session.findUniqueOrThrow({
      where: { id: String(decodeJwt(s.refreshToken).sid) },
    });
    expect([session.status, session.currentVersion]).toEqual(['ACTIVE', 1]);
  });

  test('AccountDeleted, and nothing consumed', async () => {
    const d = await signedIn();
    // What `pnpm admin account set-status --status DELETED` does.
    await setAccountStatus(pair.infra.provisioning, d.accountId, 'DELETED');
    const res = await refresh(d.refreshToken);
    expect([res.status, res.body]).toEqual([403, { reason: 'AccountDeleted' }]);
    const session = await pair.infra.db.session.findUniqueOrThrow({
      where: { id: String(decodeJwt(d.refreshToken).sid) },
    });
    expect([session.status, session.currentVersion]).toEqual(['ACTIVE', 1]);
  });

  test('ClaimConsentRequired with the view and an errand; after consent the same token rotates', async () => {
    const backend = await provisionBackend(pair.infra, pair.host.url, { claims: { email: 'OPTIONAL' } });
    const s = await signedIn(backend);
    await setClaims(pair.infra.provisioning, backend.fixture.anchor, { email: 'REQUIRED' });
    const gate = await refresh(s.refreshToken);
    expect([gate.status, gate.body.reason]).toEqual([403, 'ClaimConsentRequired']);
    expect(gate.body.claims.email).toEqual({ requirement: 'REQUIRED', state: 'UNKNOWN' });
    expect(gate.body.errand.errandKey).toMatch(/^ernd_/);
    await grantClaim(pair.infra.provisioning, s.accountId, backend.fixture.anchor, 'email', 'GRANTED');
    const res = await refresh(s.refreshToken);
    expect(res.status).toBe(200);
    expect(res.body.claims.email).toEqual({ requirement: 'REQUIRED', state: 'GRANTED' });
  });
});

describe('POST /info', () => {
  let anchor: string;
  beforeAll(async () => {
    anchor = (await provisionApp(pair.infra, { names: { 'en-US': 'Lantern', 'zh-CN': '灯笼' } })).anchor;
  });
  const info = (locale: string, a = anchor) =>
    postJson(`${pair.host.url}/info`, { applicationAnchor: a, locale });

  test.each([
    ['en-US', 'Lantern'],
    ['zh-CN', '灯笼'],
    ['zh-Hans-CN', '灯笼'],
    ['zh-hans', '灯笼'],
    ['zh', '灯笼'],
    ['en-GB', 'Lantern'],
    ['fr-FR', 'Lantern'],
    ['tlh', 'Lantern'],
  ])('%s gives %s', async (locale, name) => {
    const res = await info(locale);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ applicationAnchor: anchor, applicationName: name });
  });

  test('falls back to the default locale of the application', async () => {
    const { anchor: a } = await provisionApp(pair.infra, {
      names: { 'en-US': 'English', 'zh-CN': '中文名' },
    });
    await pair.infra.db.application.update({ where: { anchor: a }, data: { defaultLocale: 'zh-CN' } });
    expect((await info('de-DE', a)).body.applicationName).toBe('中文名');
  });

  test('ApplicationNotFound for an unknown anchor, InvalidBody for a malformed tag or body', async () => {
    const res = await info('en-US', 'no-such-app-here');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ reason: 'ApplicationNotFound' });
    expect((await info('not a tag!')).status).toBe(400);
    expect((await postJson(`${pair.host.url}/info`, { applicationAnchor: anchor })).body).toEqual({
      reason: 'InvalidBody',
    });
  });
});
