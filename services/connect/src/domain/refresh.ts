// Connect POST /refresh: the refresh policy, strict (no retry allowance) and only for sessions this host issued;
// reuse or a lost race revokes the family. The response carries the three-key claim view with the SYNTHETIC
// requirement.
import { createRefresh, type RefreshDeps, type RotationRefusal, unverifiedAs } from '@svc/issuance';
import { type Reason, ServiceError } from '@svc/platform';
import { type ConnectClaimView, toConnectClaimView } from '@svc/token-core';
import { CONNECT_AUTH_METHOD } from './establish';

const rejected = (reason: Reason) => () => new ServiceError(reason);
const notFound = rejected('RefreshTokenNotFound');
const expired = rejected('RefreshTokenExpired');

/** Every refusal of the rotation core, in connect's reasons. */
const REFUSED: Readonly<Record<RotationRefusal, () => ServiceError>> = {
  not_found: notFound,
  revoked: notFound,
  stale: notFound,
  suspended: rejected('RefreshTokenSuspended'),
  expired,
  family_compromised: rejected('RefreshTokenFamilyCompromised'),
  race_lost: rejected('RefreshTokenRotationRaceLost'),
  conflict: rejected('RefreshTokenRotationRaceLost'), // only with a retry allowance, which connect does not give
};

export interface ConnectRefreshed {
  claims: ConnectClaimView;
  accessToken: string;
  refreshToken: string;
}

/** A /refresh, counted by the policy like every host's (refresh_outcomes_total, tokens_issued_total). */
export const refreshConnectSession: (deps: RefreshDeps, refreshToken: string) => Promise<ConnectRefreshed> =
  createRefresh<RefreshDeps, ConnectRefreshed>({
    retryAllowanceMs: () => 0,
    // Only sessions this host issued (usernameless passkey sign-in) rotate here.
    authMethod: CONNECT_AUTH_METHOD,
    // A presented token that does not verify: expired, or not found.
    unverified: unverifiedAs(notFound, { expired }),
    refused: REFUSED,
    answer: (rotated) => ({
      claims: toConnectClaimView(rotated.claims),
      accessToken: rotated.accessToken,
      refreshToken: rotated.refreshToken,
    }),
  });
