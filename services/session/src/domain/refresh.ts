// Session /refresh: the refresh policy with the near-simultaneous retry allowance, answered with the session host's
// reasons (and their messages).
import { createRefresh, type RefreshDeps, type RotationRefusal } from '@svc/issuance';
import { ServiceError } from '@svc/platform';
import type { ClaimView, VerifyFailure } from '@svc/token-core';

export interface RefreshResult {
  claims: ClaimView;
  accessToken: string;
  refreshToken: string;
}

const rejected = (reason: ConstructorParameters<typeof ServiceError>[0], message: string) => () =>
  new ServiceError(reason, { message });

const invalid = rejected(
  'RefreshTokenInvalid',
  'the refresh token is malformed or not valid for an application',
);
const badSignature = rejected(
  'RefreshTokenInvalidSignature',
  'the signature does not verify against a published key',
);
const compromised = rejected(
  'RefreshTokenFamilyCompromised',
  'the refresh token was reused; the session is revoked',
);

/** A presented refresh token that does not verify, in the session host's reasons. */
export const UNVERIFIED_REFRESH: Readonly<Record<VerifyFailure, () => ServiceError>> = {
  wrong_type: rejected('RefreshTokenInvalidType', 'the token is not a refresh token'),
  bad_signature: badSignature,
  unknown_key: badSignature,
  expired: rejected('RefreshTokenExpired', 'the refresh token has expired'),
  malformed: invalid,
  invalid_claims: invalid,
};

const REFUSED: Readonly<Record<RotationRefusal, () => ServiceError>> = {
  not_found: rejected('RefreshTokenInvalid', 'no session matches this refresh token'),
  revoked: rejected('RefreshTokenRevoked', 'the session has been revoked'),
  suspended: rejected('RefreshTokenSuspended', 'the session is suspended'),
  expired: rejected('RefreshTokenExpired', 'the session has expired'),
  family_compromised: compromised,
  race_lost: compromised,
  // The spec's unrecoverable rotation conflict "of private classification": a status-only 401. The reason stays
  // internal (logs); the session is left as the concurrent rotation that won it left it.
  conflict: () => new ServiceError('RefreshTokenRotationRaceLost'),
  stale: rejected(
    'AuthorizationArtifactStale',
    'the identity authority changed; restart through an initial issuance flow',
  ),
};

/** What a session-host refresh takes: the rotation core's dependencies and the host's retry allowance. */
export type SessionRefreshDeps = RefreshDeps & {
  /** Window in which a retry of the same rotation gets the pair already issued (REFRESH_RETRY_WINDOW_MS). */
  retryAllowanceMs: number;
};

/** A /refresh: counted by the policy (refresh_outcomes_total, tokens_issued_total{method="refresh"}). */
export const refreshSession: (deps: SessionRefreshDeps, refreshToken: string) => Promise<RefreshResult> =
  createRefresh<SessionRefreshDeps, RefreshResult>({
    retryAllowanceMs: (deps) => deps.retryAllowanceMs,
    unverified: UNVERIFIED_REFRESH,
    refused: REFUSED,
    answer: (rotated) => ({
      claims: rotated.claims,
      accessToken: rotated.accessToken,
      refreshToken: rotated.refreshToken,
    }),
  });
