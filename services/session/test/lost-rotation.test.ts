// A rotation the database lost after answering it (an asynchronous replica promoted, a restore; RELIABILITY.md
// "Asynchronous replication loses answered rotations"), simulated by putting the session row back as it was before
// the rotation: the client's token names a version the row no longer has, its jti this session's MAC for that
// version. That token is refused and revokes the family, so the token before it, current again on the row, stops
// too; whichever is presented first, the chain does not go on in two hands. scripts/engines/pg-async-promotion.test.ts
// does the same through a real promotion.
import { postJson } from '@svc/testkit';
import { decodeJwt } from 'jose';
import { freshSession, type SessionHarness, startSessionHost } from './support';

let h: SessionHarness;
beforeAll(async () => {
  h = await startSessionHost({ SESSION_CACHE_MS: '0' });
});
afterAll(() => h.close());

const refresh = (refreshToken: string) => postJson(`${h.url}/refresh`, { refreshToken });

/** A fresh session rotated once, then its row put back as before that rotation: the rotation is lost. */
async function lostRotation() {
  const { issued } = await freshSession(h.infra);
  const before = await h.infra.db.session.findUniqueOrThrow({ where: { id: issued.sid } });
  const rotated = await refresh(issued.refreshToken);
  expect(rotated.status).toBe(200);
  await h.infra.db.session.update({
    where: { id: issued.sid },
    data: {
      currentVersion: before.currentVersion,
      currentJti: before.currentJti,
      rotatedAt: before.rotatedAt,
      retryUntil: before.retryUntil,
      expiresAt: before.expiresAt,
    },
  });
  return { sid: issued.sid, stale: issued.refreshToken, lost: rotated.body.refreshToken as string };
}

const row = async (sid: string) => {
  const s = await h.infra.db.session.findUniqueOrThrow({ where: { id: sid } });
  return [s.status, s.revokedReason];
};

test('the owner presents the token of the lost rotation first: 401 RefreshTokenInvalid and the family is revoked, so the token before it is refused too', async () => {
  const { sid, stale, lost } = await lostRotation();
  const owner = await refresh(lost);
  expect([owner.status, owner.body.reason]).toEqual([401, 'RefreshTokenInvalid']);
  expect(await row(sid)).toEqual(['REVOKED', 'rotation_lost']);
  const copy = await refresh(stale);
  expect([copy.status, copy.body.reason]).toEqual([401, 'RefreshTokenRevoked']);
});

test('the token before the lost rotation is presented first: it is accepted (the row cannot tell), and the owner coming back revokes the family, ending that chain too', async () => {
  const { sid, stale, lost } = await lostRotation();
  const copy = await refresh(stale);
  expect(copy.status).toBe(200);
  // The same version as the owner's, under another jti.
  expect(decodeJwt(copy.body.refreshToken).rotationVersion).toBe(decodeJwt(lost).rotationVersion);
  const owner = await refresh(lost);
  expect([owner.status, owner.body.reason]).toEqual([401, 'RefreshTokenInvalid']);
  expect(await row(sid)).toEqual(['REVOKED', 'rotation_lost']);
  const next = await refresh(copy.body.refreshToken);
  expect([next.status, next.body.reason]).toEqual([401, 'RefreshTokenRevoked']);
});
