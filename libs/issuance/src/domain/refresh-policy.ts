// The one refresh policy every host's refresh runs on (session /refresh, connect /refresh, the OIDC refresh grant):
// verify the presented refresh token, rotate it, answer each failure through the host's own table, and count
// refresh_outcomes_total{outcome} and tokens_issued_total{method="refresh"} alike on every host.
import { countRefreshOutcome, countTokensIssued, type Reason, ServiceError } from '@svc/platform';
import { TokenVerificationError, type VerifyFailure } from '@svc/token-core';
import type { ApplicationCache } from './application-context';
import { type PresentedToken, REFRESH_TYPS, verifyPresentedToken } from './presented-token';
import { type RotateInput, type RotationDeps, type RotationOutcome, rotateRefreshToken } from './rotation';

/** Every way the rotation core refuses a presented version. */
export type RotationRefusal = Exclude<RotationOutcome['kind'], 'rotated'>;
export type Rotated = Extract<RotationOutcome, { kind: 'rotated' }>;

/**
 * The outcome label refresh_outcomes_total counts a refusal under, the same on every host whatever the host answers
 * (the session host's reasons): deploy/observability's RefreshFamilyCompromisedSpike reads
 * RefreshTokenFamilyCompromised, which a reuse and a lost strict race (both revoke the family) count on every host.
 */
export const REFUSAL_OUTCOMES: Readonly<Record<RotationRefusal, Reason>> = {
  not_found: 'RefreshTokenInvalid',
  revoked: 'RefreshTokenRevoked',
  suspended: 'RefreshTokenSuspended',
  expired: 'RefreshTokenExpired',
  family_compromised: 'RefreshTokenFamilyCompromised',
  race_lost: 'RefreshTokenFamilyCompromised',
  conflict: 'RefreshTokenRotationRaceLost',
  stale: 'AuthorizationArtifactStale',
};

/** The outcome label of a presented refresh token that does not verify (the session host's classification). */
export const UNVERIFIED_OUTCOMES: Readonly<Record<VerifyFailure, Reason>> = {
  wrong_type: 'RefreshTokenInvalidType',
  bad_signature: 'RefreshTokenInvalidSignature',
  unknown_key: 'RefreshTokenInvalidSignature',
  expired: 'RefreshTokenExpired',
  malformed: 'RefreshTokenInvalid',
  invalid_claims: 'RefreshTokenInvalid',
};

/**
 * A host's own refusal raised before the rotation consumes anything (the OIDC host's client and scope conditions):
 * counted under `outcome`, answered with `answer`.
 */
export class RefreshRefusal extends Error {
  constructor(
    readonly outcome: string,
    readonly answer: Error,
  ) {
    super(answer.message);
    this.name = 'RefreshRefusal';
  }
}

/** What a refresh needs: the rotation core's dependencies, the application cache, and where it counts. */
export type RefreshDeps = RotationDeps & { apps: ApplicationCache };

/**
 * Per-request inputs a host's `prepare` may set for the rotation core (the OIDC host: its client's condition on
 * the session, and the narrowed scope).
 */
export interface RefreshRequest {
  admit?: RotateInput['admit'];
  scope?: string;
  /** The new access token's DPoP key (RFC 7638 thumbprint), when the request carried a valid proof. */
  dpopJkt?: string;
}

/** One host's refresh: its rotation rules and its answer to every outcome. */
export interface RefreshPolicy<D extends RefreshDeps, Req extends RefreshRequest, Answer> {
  /** The issuance protocol of the sessions this host rotates (default APPLICATION). */
  protocol?: 'APPLICATION' | 'OIDC';
  /** Only sessions issued by this authentication method rotate here (connect: its own sign-ins). */
  authMethod?: string;
  /** The retry allowance (0: strict, any reuse or lost race compromises the family). */
  retryAllowanceMs(deps: D): number;
  /** The host's error for a presented token that does not verify, by failure. */
  unverified: Readonly<Record<VerifyFailure, () => Error>>;
  /** The host's error for each refusal of the rotation core. */
  refused: Readonly<Record<RotationRefusal, () => Error>>;
  /** The host's answer to any other failure (an issuance check's ServiceError, a dependency failure). */
  failed?(err: unknown): unknown;
  /**
   * The host's own conditions on the verified token, before the rotation (a host with conditions always passes
   * its request); may throw a RefreshRefusal, and may set the request's `admit` and `scope`.
   */
  prepare?(deps: D, presented: PresentedToken, req: Req): void;
  /** The host's answer to a rotation. */
  answer(rotated: Rotated): Answer;
}

/**
 * A host's table of verification failures that answers all of them alike (`answer`), but for the failures it tells
 * apart (`except`: connect answers an expired token RefreshTokenExpired).
 */
export function unverifiedAs<E extends Error>(
  answer: () => E,
  except: Partial<Record<VerifyFailure, () => E>> = {},
): Readonly<Record<VerifyFailure, () => E>> {
  return {
    malformed: answer,
    wrong_type: answer,
    unknown_key: answer,
    bad_signature: answer,
    expired: answer,
    invalid_claims: answer,
    ...except,
  };
}

const VERIFY_REFRESH = { typ: REFRESH_TYPS } as const;

/** The outcome label of a failure that is neither a verification failure nor a refusal. */
function failureOutcome(err: unknown): string {
  if (err instanceof RefreshRefusal) return err.outcome;
  return err instanceof ServiceError ? err.reason : 'unavailable';
}

/**
 * The refresh of one host: `refresh(deps, presentedToken, req?)` answers the rotation through `policy.answer`, or
 * throws the host's error; every call is counted once in refresh_outcomes_total (rotated, or the refusal's label)
 * and a rotation in tokens_issued_total{method="refresh"}. A retry the allowance re-answers counts as rotated.
 */
export function createRefresh<D extends RefreshDeps, Answer, Req extends RefreshRequest = RefreshRequest>(
  policy: RefreshPolicy<D, Req, Answer>,
): (deps: D, presentedToken: string, req?: Req) => Promise<Answer> {
  const { protocol, authMethod, unverified, refused } = policy;
  const failed = policy.failed ?? ((err: unknown) => err);
  return async function refresh(deps, presentedToken, req) {
    let presented: PresentedToken;
    try {
      presented = await verifyPresentedToken(deps, deps.apps, presentedToken, VERIFY_REFRESH);
    } catch (err) {
      if (err instanceof TokenVerificationError) {
        countRefreshOutcome(deps.metrics, UNVERIFIED_OUTCOMES[err.failure]);
        throw unverified[err.failure]();
      }
      countRefreshOutcome(deps.metrics, failureOutcome(err));
      throw failed(err);
    }
    let outcome: RotationOutcome;
    try {
      policy.prepare?.(deps, presented, req as Req);
      outcome = await rotateRefreshToken(deps, {
        app: presented.app,
        claims: presented.claims,
        presentedToken,
        retryAllowanceMs: policy.retryAllowanceMs(deps),
        protocol,
        authMethod,
        admit: req?.admit,
        scope: req?.scope,
        dpopJkt: req?.dpopJkt,
      });
    } catch (err) {
      countRefreshOutcome(deps.metrics, failureOutcome(err));
      throw err instanceof RefreshRefusal ? err.answer : failed(err);
    }
    if (outcome.kind !== 'rotated') {
      countRefreshOutcome(deps.metrics, REFUSAL_OUTCOMES[outcome.kind]);
      throw refused[outcome.kind]();
    }
    countRefreshOutcome(deps.metrics, 'rotated');
    countTokensIssued(deps.metrics, 'refresh');
    return policy.answer(outcome);
  };
}
