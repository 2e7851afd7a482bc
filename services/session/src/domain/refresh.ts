// Session /refresh: verify the refresh token, then rotate it with the near-simultaneous retry allowance.
import { REFRESH_TYPS, rotateRefreshToken, verifyPresentedToken } from '@svc/issuance';
import { countRefreshOutcome, countTokensIssued, ServiceError } from '@svc/platform';
import { type ClaimView, TokenVerificationError } from '@svc/token-core';
import type { SessionDeps } from '../deps';

export interface RefreshResult {
  claims: ClaimView;
  accessToken: string;
  refreshToken: string;
}

const rejected = (reason: ConstructorParameters<typeof ServiceError>[0], message: string) =>
  new ServiceError(reason, { message });

/** Maps a verification failure of a presented refresh token to the session host's reasons. */
export function refreshVerificationError(err: unknown): ServiceError {
  if (!(err instanceof TokenVerificationError)) throw err;
  switch (err.failure) {
    case 'wrong_type':
      return rejected('RefreshTokenInvalidType', 'the token is not a refresh token');
    case 'bad_signature':
    case 'unknown_key':
      return rejected(
        'RefreshTokenInvalidSignature',
        'the signature does not verify against a published key',
      );
    case 'expired':
      return rejected('RefreshTokenExpired', 'the refresh token has expired');
    default:
      return rejected(
        'RefreshTokenInvalid',
        'the refresh token is malformed or not valid for an application',
      );
  }
}

export async function verifyRefreshToken(deps: SessionDeps, token: string) {
  try {
    return await verifyPresentedToken(deps, deps.apps, token, { typ: REFRESH_TYPS });
  } catch (err) {
    throw refreshVerificationError(err);
  }
}

/** A /refresh, counted by outcome (refresh_outcomes_total) and, when it rotates, as a pair issued. */
export async function refreshSession(deps: SessionDeps, refreshToken: string): Promise<RefreshResult> {
  try {
    const result = await rotateOnce(deps, refreshToken);
    countRefreshOutcome(deps.metrics, 'rotated');
    countTokensIssued(deps.metrics, 'refresh');
    return result;
  } catch (err) {
    countRefreshOutcome(deps.metrics, err instanceof ServiceError ? err.reason : 'unavailable');
    throw err;
  }
}

async function rotateOnce(deps: SessionDeps, refreshToken: string): Promise<RefreshResult> {
  const { app, claims } = await verifyRefreshToken(deps, refreshToken);
  const outcome = await rotateRefreshToken(deps, {
    app,
    claims,
    presentedToken: refreshToken,
    retryAllowanceMs: deps.retryAllowanceMs,
  });
  switch (outcome.kind) {
    case 'rotated':
      return { claims: outcome.claims, accessToken: outcome.accessToken, refreshToken: outcome.refreshToken };
    case 'not_found':
      throw rejected('RefreshTokenInvalid', 'no session matches this refresh token');
    case 'revoked':
      throw rejected('RefreshTokenRevoked', 'the session has been revoked');
    case 'suspended':
      throw rejected('RefreshTokenSuspended', 'the session is suspended');
    case 'expired':
      throw rejected('RefreshTokenExpired', 'the session has expired');
    case 'family_compromised':
    case 'race_lost':
      throw rejected('RefreshTokenFamilyCompromised', 'the refresh token was reused; the session is revoked');
    case 'conflict':
      // The spec's unrecoverable rotation conflict "of private classification": a status-only 401. The reason
      // stays internal (logs); the session is left as the concurrent rotation that won it left it.
      throw new ServiceError('RefreshTokenRotationRaceLost');
    case 'stale':
      throw new ServiceError('AuthorizationArtifactStale', {
        message: 'the identity authority changed; restart through an initial issuance flow',
      });
  }
}
