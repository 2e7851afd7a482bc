// Session suspension through the operator's command (`pnpm admin sessions suspend|resume`), seen over HTTP:
// refresh answers RefreshTokenSuspended and introspection reports the session not active until it is resumed.
import { moveSession } from '@svc/provisioning';
import { postJson, waitUntil } from '@svc/testkit';
import { admin } from '../../../tools/admin/test/run-admin';
import { freshSession, type SessionHarness, startSessionHost } from './support';

let h: SessionHarness;
beforeAll(async () => {
  // The default session cache (1 s, dropped on the admin's pub/sub announcement), as in production.
  h = await startSessionHost({ REFRESH_RETRY_WINDOW_MS: '0' });
});
afterAll(() => h.close());

const refresh = (refreshToken: string) => postJson(`${h.url}/refresh`, { refreshToken });
const introspect = async (accessToken: string) =>
  (await postJson(`${h.url}/introspect`, { accessToken })).body as {
    status: string;
    recommendedRecheckSeconds: number;
  };

describe('sessions suspend / resume', () => {
  it('a suspended session refreshes with RefreshTokenSuspended and introspects as not active; resume restores it', async () => {
    const { issued } = await freshSession(h.infra);
    expect((await introspect(issued.accessToken)).status).toBe('active');

    const suspended = await admin(['sessions', 'suspend', '--sid', issued.sid]);
    expect([suspended.code, suspended.json]).toEqual([0, { sid: issued.sid, status: 'suspended' }]);
    const refused = await refresh(issued.refreshToken);
    expect([refused.status, refused.body.reason]).toEqual([401, 'RefreshTokenSuspended']);
    // Within moments (the 1 s cache is dropped on the announcement); the ceiling is for a loaded machine.
    await waitUntil(async () => (await introspect(issued.accessToken)).status !== 'active');
    const seen = await introspect(issued.accessToken);
    expect(seen.status).toBe('revoked');
    // Not terminal: a suspension can be lifted, so the recheck stays the active-session one.
    expect(seen.recommendedRecheckSeconds).toBe(h.deps.recheckSeconds);
    // The refusal consumed nothing, and suspending again is idempotent.
    expect((await admin(['sessions', 'suspend', '--sid', issued.sid])).json.status).toBe('suspended');

    const resumed = await admin(['sessions', 'resume', '--sid', issued.sid]);
    expect([resumed.code, resumed.json]).toEqual([0, { sid: issued.sid, status: 'active' }]);
    await waitUntil(async () => (await introspect(issued.accessToken)).status === 'active');
    const rotated = await refresh(issued.refreshToken);
    expect(rotated.status).toBe(200);
    expect((await introspect(rotated.body.accessToken)).status).toBe('active');
  }, 120_000);

  it('refuses unknown, malformed, revoked and expired sessions without changing them', async () => {
    const { issued } = await freshSession(h.infra);
    expect((await postJson(`${h.url}/logout`, { refreshToken: issued.refreshToken })).body.revoked).toBe(
      true,
    );
    const expired = await freshSession(h.infra);
    await h.infra.db.session.update({
      where: { id: expired.issued.sid },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    // The refusals' wording past the first is checked on the library.
    const revoked = await admin(['sessions', 'suspend', '--sid', issued.sid]);
    expect([revoked.code, revoked.json]).toEqual([
      1,
      { error: 'the session is revoked; only active sessions can be suspended' },
    ]);
    const unknown = await admin(['sessions', 'resume', '--sid', 'sid_doesNotExist0000000000']);
    expect([unknown.code, unknown.json]).toEqual([1, { error: 'session not found' }]);
    const malformed = await admin(['sessions', 'suspend', '--sid', 'not-a-sid']);
    expect(malformed.code).toBe(2);
    expect(malformed.json.error).toMatch(/--sid must be a session id/);
    await expect(
      moveSession(h.infra.provisioning, expired.issued.sid, 'suspend', h.infra.issuance.clock),
    ).rejects.toThrow('the session is expired; only active sessions can be suspended');
    await expect(
      moveSession(h.infra.provisioning, expired.issued.sid, 'resume', h.infra.issuance.clock),
    ).rejects.toThrow('the session is expired; only suspended sessions can be resumed');
    const rows = await h.infra.db.session.findMany({
      where: { id: { in: [issued.sid, expired.issued.sid] } },
      select: { id: true, status: true },
    });
    expect(Object.fromEntries(rows.map((r) => [r.id, r.status]))).toEqual({
      [issued.sid]: 'REVOKED',
      [expired.issued.sid]: 'ACTIVE',
    });
  }, 120_000);
});
