// Connect POST /refresh: strict rotation (no retry allowance); reuse or a lost race revokes the family.
// The response carries the three-key claim view with the SYNTHETIC requirement.
import {
  type ApplicationCache,
  REFRESH_TYPS,
  type RotationDeps,
  type RotationOutcome,
  rotateRefreshToken,
  verifyPresentedToken,
} from '@svc/issuance';
import { type Reason, ServiceError } from '@svc/platform';
import { type ConnectClaimView, TokenVerificationError, toConnectClaimView } from '@svc/token-core';
import { CONNECT_AUTH_METHOD } from './establish';

const rejected = (reason: Reason) => new ServiceError(reason);

/** Maps every non-success outcome of the rotation core to connect's reasons. */
export function outcomeError(outcome: Exclude<RotationOutcome, { kind: 'rotated' }>): ServiceError {
  switch (outcome.kind) {
    case 'not_found':
    case 'revoked':
    case 'stale':
      return rejected('RefreshTokenNotFound');
    case 'suspended':
      return rejected('RefreshTokenSuspended');
    case 'expired':
      return rejected('RefreshTokenExpired');
    case 'family_compromised':
      return rejected('RefreshTokenFamilyCompromised');
    case 'race_lost':
    case 'conflict': // only with a retry allowance, which connect does not give
      return rejected('RefreshTokenRotationRaceLost');
  }
}

export async function refreshConnectSession(
  deps: { rotation: RotationDeps; apps: ApplicationCache },
  refreshToken: string,
): Promise<{ claims: ConnectClaimView; accessToken: string; refreshToken: string }> {
  let presented: Awaited<ReturnType<typeof verifyPresentedToken>>;
  try {
    presented = await verifyPresentedToken(deps.rotation, deps.apps, refreshToken, { typ: REFRESH_TYPS });
  } catch (err) {
    if (err instanceof TokenVerificationError) {
      throw rejected(err.failure === 'expired' ? 'RefreshTokenExpired' : 'RefreshTokenNotFound');
    }
    throw err;
  }
  const outcome = await rotateRefreshToken(deps.rotation, {
    app: presented.app,
    claims: presented.claims,
    presentedToken: refreshToken,
    retryAllowanceMs: 0,
    // Only sessions this host issued (usernameless passkey sign-in) rotate here.
    authMethod: CONNECT_AUTH_METHOD,
  });
  if (outcome.kind !== 'rotated') throw outcomeError(outcome);
  return {
    claims: toConnectClaimView(outcome.claims),
    accessToken: outcome.accessToken,
    refreshToken: outcome.refreshToken,
  };
}
