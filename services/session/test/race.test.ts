// Concurrency: many simultaneous /refresh calls with one token, spread over two replicas of the session host,
// rotate exactly once and leave exactly one live refresh family.
import { postJson } from '@svc/testkit';
import { decodeJwt } from 'jose';
import { freshSession, type SessionHarness, startSessionHost } from './support';

let a: SessionHarness;
let b: SessionHarness;
beforeAll(async () => {
  a = await startSessionHost({ REFRESH_RETRY_WINDOW_MS: '3000' });
  b = await startSessionHost({ REFRESH_RETRY_WINDOW_MS: '3000' });
});
afterAll(async () => {
  await a.close();
  await b.close();
});

describe('concurrent refresh across replicas', () => {
  it('rotates exactly once; every concurrent caller gets the one pair', async () => {
    const { issued } = await freshSession(a.infra);
    const calls = Array.from({ length: 24 }, (_, i) =>
      postJson(`${(i % 2 ? a : b).url}/refresh`, { refreshToken: issued.refreshToken }),
    );
    const results = await Promise.all(calls);
    expect(results.map((r) => r.status)).toEqual(Array(24).fill(200));
    const refreshTokens = new Set(results.map((r) => r.body.refreshToken));
    expect(refreshTokens.size).toBe(1);
    const session = await a.infra.db.session.findUniqueOrThrow({ where: { id: issued.sid } });
    expect(session.currentVersion).toBe(2);
    expect(session.status).toBe('ACTIVE');
    const [winner] = [...refreshTokens];
    expect(session.currentJti).toBe(decodeJwt(winner!).jti);
    // No second family: the only sessions of this account are the one sid.
    const sessions = await a.infra.db.session.findMany({ where: { accountId: session.accountId } });
    expect(sessions).toHaveLength(1);
    expect(decodeJwt(winner!).rotationVersion).toBe(2);
    expect((await postJson(`${a.url}/refresh`, { refreshToken: winner })).status).toBe(200);
  });

  it('without a retry allowance, a lost race revokes the family (strict mode)', async () => {
    const strict = await startSessionHost({ REFRESH_RETRY_WINDOW_MS: '0' });
    try {
      const { issued } = await freshSession(strict.infra);
      const results = await Promise.all(
        Array.from({ length: 8 }, () =>
          postJson(`${strict.url}/refresh`, { refreshToken: issued.refreshToken }),
        ),
      );
      const ok = results.filter((r) => r.status === 200);
      expect(ok.length).toBeLessThanOrEqual(1);
      expect(results.filter((r) => r.status === 401).length).toBeGreaterThanOrEqual(7);
      const session = await strict.infra.db.session.findUniqueOrThrow({ where: { id: issued.sid } });
      expect(session.status).toBe('REVOKED');
      expect(session.currentVersion).toBeLessThanOrEqual(2);
    } finally {
      await strict.close();
    }
  });
});
