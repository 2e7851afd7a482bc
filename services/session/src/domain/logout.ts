// Session /logout: any genuine, unexpired refresh-token version of a session revokes it; idempotent.
import { namesReachedVersion, REFRESH_TYPS, verifyPresentedToken } from '@svc/issuance';
import { ServiceError } from '@svc/platform';
import { TokenVerificationError } from '@svc/token-core';
import type { SessionDomainDeps } from './ports';
import { UNVERIFIED_REFRESH } from './refresh';

/** The presented refresh token, verified; one that does not verify is refused as /refresh refuses it. */
async function verifyRefreshToken(deps: SessionDomainDeps, token: string) {
  try {
    return await verifyPresentedToken(deps, deps.apps, token, { typ: REFRESH_TYPS });
  } catch (err) {
    if (err instanceof TokenVerificationError) throw UNVERIFIED_REFRESH[err.failure]();
    throw err;
  }
}

export async function logout(deps: SessionDomainDeps, refreshToken: string): Promise<{ revoked: boolean }> {
  const { app, claims } = await verifyRefreshToken(deps, refreshToken);
  // Genuine means signed for this application (verified above) and naming a version this session really reached
  // under that version's exact jti: the current one is on the row, an older one carries a MAC of the sid and its
  // version (see refresh-jti in libs/issuance).
  const session = await deps.ports.sessions.findSessionVersion(claims.sid);
  if (!session || session.applicationId !== app.id || !namesReachedVersion(deps.kek, session, claims)) {
    throw new ServiceError('RefreshTokenInvalid', { message: 'no session matches this refresh token' });
  }
  if (session.status === 'REVOKED') return { revoked: true };
  const now = new Date(deps.clock());
  if (session.status === 'EXPIRED' || session.expiresAt <= now) return { revoked: false };
  await deps.ports.sessions.revokeSession(session.id, 'logout', now);
  deps.ports.sessionCache.evict(session.id);
  await deps.ports.sessionEvents.publishSessionChange(session.id);
  return { revoked: true };
}
