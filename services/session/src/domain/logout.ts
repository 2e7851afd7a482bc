// Session /logout: any genuine, unexpired refresh-token version of a session revokes it; idempotent.
import { publishSessionChange } from '@svc/issuance';
import { ServiceError } from '@svc/platform';
import type { SessionDeps } from '../deps';
import { verifyRefreshToken } from './refresh';

export async function logout(deps: SessionDeps, refreshToken: string): Promise<{ revoked: boolean }> {
  const { app, claims } = await verifyRefreshToken(deps, refreshToken);
  // Genuine means the version this token names was really issued for this session (sid, aud, jti, version).
  const version = await deps.db.refreshVersion.findUnique({
    where: { jti: claims.jti },
    select: {
      version: true,
      session: { select: { id: true, applicationId: true, status: true, expiresAt: true } },
    },
  });
  const session = version?.session;
  if (
    !session ||
    session.id !== claims.sid ||
    session.applicationId !== app.id ||
    version.version !== claims.rotationVersion
  ) {
    throw new ServiceError('RefreshTokenInvalid', 401, { message: 'no session matches this refresh token' });
  }
  if (session.status === 'REVOKED') return { revoked: true };
  const now = deps.now();
  if (session.status === 'EXPIRED' || session.expiresAt <= now) return { revoked: false };
  await deps.db.session.updateMany({
    where: { id: session.id, status: { in: ['ACTIVE', 'SUSPENDED'] } },
    data: { status: 'REVOKED', revokedReason: 'logout', revokedAt: now },
  });
  deps.sessions.evict(session.id);
  await publishSessionChange(deps.redis, session.id);
  return { revoked: true };
}
