// Token revocation (RFC 7009) for the OIDC host's clients: a refresh token or an access token of a session this
// client was issued ends that session, as session /logout ends one (the sessions row revoked, then the change
// published on Redis, so every replica of every host drops its cached state at once). An access token is a
// self-contained JWT the application verifies offline, so revoking one means revoking its session (RFC 7009 2.1
// allows revoking the related grant): /userinfo, /introspect and the refresh grant refuse it from then on.
// Whatever the token (unknown, forged, expired, another client's, already revoked), the answer is the same empty
// 200 (RFC 7009 2.2), so the endpoint tells a caller nothing about tokens it does not hold.
import { namesReachedVersion, REFRESH_TYPS, revokeFamily, verifyPresentedToken } from '@svc/issuance';
import { TYP } from '@svc/token-core';
import { InvalidRequest } from './oauth-errors';
import type { OidcClient, OidcDomainDeps } from './ports';

/** Why a session ends here, as sessions.revoked_reason records it. */
export const REVOKED_BY_CLIENT = 'oidc_revocation';

/** RFC 7009 2.1: the hint only says where to look first; this host looks in both places whatever it says. */
export async function revokeToken(
  deps: OidcDomainDeps,
  client: OidcClient,
  token: string | undefined,
): Promise<void> {
  if (!token) throw new InvalidRequest('token is required');
  let presented: Awaited<ReturnType<typeof verifyPresentedToken>>;
  try {
    // An expired token still names its session: revoking it is what the client asks, and harmless.
    presented = await verifyPresentedToken(deps, deps.apps, token, {
      typ: [...REFRESH_TYPS, TYP.accountAccess],
      ignoreExpiry: true,
    });
  } catch {
    return;
  }
  const { app, claims, typ } = presented;
  if (app.id !== client.applicationId || typeof claims.sid !== 'string') return;
  // Only a session issued to this client (another client of the same application holds its own tokens).
  if ((await deps.ports.oidcSessions.clientIdOf(claims.sid)) !== client.clientId) return;
  if (typ === TYP.refresh) {
    const session = await deps.ports.sessions.findSessionVersion(claims.sid);
    if (!session || !namesReachedVersion(deps.kek, session, claims)) return;
  }
  await revokeFamily(deps, claims.sid, REVOKED_BY_CLIENT);
}
