// Concurrency: many simultaneous /refresh calls with one token, spread over two replicas of the session host,
// rotate exactly once and leave exactly one live refresh family.
import type { NewSession } from '@svc/issuance';
import { createSessionsStore } from '@svc/issuance/stores';
import { postJson } from '@svc/testkit';
import { newJti, newSid } from '@svc/token-core';
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
      // Exactly one rotation wins (nothing can revoke the family before some write has won), and every other
      // caller, lost race or reuse alike, is told the family is compromised.
      const ok = results.filter((r) => r.status === 200);
      expect(ok).toHaveLength(1);
      const refused = results.filter((r) => r.status !== 200);
      expect(refused.map((r) => [r.status, r.body?.reason])).toEqual(
        Array(7).fill([401, 'RefreshTokenFamilyCompromised']),
      );
      const session = await strict.infra.db.session.findUniqueOrThrow({ where: { id: issued.sid } });
      expect([session.status, session.currentVersion]).toEqual(['REVOKED', 2]);
      expect(session.currentJti).toBe(decodeJwt(ok[0]!.body.refreshToken).jti);
      // The winner's pair died with the family.
      const late = await postJson(`${strict.url}/refresh`, { refreshToken: ok[0]!.body.refreshToken });
      expect([late.status, late.body.reason]).toEqual([401, 'RefreshTokenFamilyCompromised']);
    } finally {
      await strict.close();
    }
  });

  it('two consumers of one version in one gathered statement: exactly one wins', async () => {
    const { issued } = await freshSession(a.infra);
    const at = new Date();
    const expiresAt = new Date(at.getTime() + 3_600_000);
    const both = ['first-jti', 'second-jti'].map((jti) => ({
      sid: issued.sid,
      presented: 1,
      next: 2,
      at,
      expiresAt,
      retryUntil: null,
      jti,
    }));
    const won = await createSessionsStore(a.infra.db).consumeVersions(both);
    expect(won.filter(Boolean)).toHaveLength(1);
    const session = await a.infra.db.session.findUniqueOrThrow({ where: { id: issued.sid } });
    expect(session.currentVersion).toBe(2);
    expect(session.currentJti).toBe(won[0] ? 'first-jti' : 'second-jti');
    // Presented again, the consumed version finds nothing to consume.
    expect(await createSessionsStore(a.infra.db).consumeVersions([both[0]!])).toEqual([false]);
  });

  it('gathered session inserts: a row whose id is taken fails alone, the others go in', async () => {
    const { app, account, issued } = await freshSession(a.infra);
    const now = new Date();
    const row = (id: string): NewSession => ({
      id,
      applicationId: app.applicationId,
      protocol: 'APPLICATION',
      accountId: account.id,
      workloadId: null,
      workloadGeneration: null,
      // A current subject of the sector (an unknown or retired one is never inserted).
      subject: issued.subject,
      actorSubject: null,
      authMethod: 'ACCESS_KEY_DIRECT',
      sourceCredentialId: null,
      accessTtl: 300,
      refreshTtl: 3600,
      authTime: now,
      createdAt: now,
      expiresAt: new Date(now.getTime() + 3_600_000),
      scope: null,
      currentJti: newJti(),
      expectedAuthority: null,
    });
    const good = row(newSid());
    const taken = row(issued.sid);
    const [ok, failed] = await Promise.all([
      createSessionsStore(a.infra.db).insertSession(good),
      createSessionsStore(a.infra.db).insertSession(taken),
    ]);
    expect(ok).toBe(true);
    expect(failed).toEqual({ failed: expect.anything() });
    const existing = await a.infra.db.session.findUniqueOrThrow({ where: { id: issued.sid } });
    expect((await a.infra.db.session.findUniqueOrThrow({ where: { id: good.id } })).currentJti).toBe(
      good.currentJti,
    );
    expect(existing.currentJti).not.toBe(taken.currentJti);
  });
});
