// Typed failures: every refusal a host answers becomes a SigninApiError carrying the spec's `reason` (or the
// OAuth-shaped `error` of /device-token and the bearer endpoints), so callers switch on a closed union.

/**
 * The spec's reasons (Errors) and the hosts' documented ones, by where they arise (alphabetical); `Reason` is their union, and an
 * unknown string still comes through.
 */
export const REASONS = {
  anyCall: ['InvalidBody', 'TemporarilyUnavailable', 'TooManyAttempts'],
  issuance: [
    'AccountDeleted',
    'AccountDisabled',
    'AccountNotFound',
    'ApplicationNotActive',
    'ApplicationNotFound',
    'AuthenticationNotFound',
    'AuthorizationArtifactStale',
    'ClaimConsentRequired',
    'EmailDomainBlocked',
    'EmailDomainRequiresSso',
    'LegalAgreementRequired',
    'LegalAgreementRevisionMismatch',
    'RequiredClaimDataMissing',
    'SsoAuthorityConflict',
  ],
  directIssue: [
    'AccessKeyDirectDenied',
    'InvalidAccessKeyIdentifier',
    'InvalidAccessKeySecret',
    'Layer1Denied',
    'Layer2Denied',
    'Layer3Denied',
    'PlatformTicketRejected',
    'PublicKeyAssertionReplayed',
    'PublicKeyDirectDenied',
    'ReplayProtectionAlreadySeen',
  ],
  inquiry: ['InquiryAlreadyRedeemed', 'InquiryExpired', 'InquiryNotFound', 'InquiryNotRealized'],
  refresh: [
    'RefreshTokenExpired',
    'RefreshTokenFamilyCompromised',
    'RefreshTokenInvalid',
    'RefreshTokenInvalidSignature',
    'RefreshTokenInvalidType',
    'RefreshTokenNotFound',
    'RefreshTokenRevoked',
    'RefreshTokenRotationRaceLost',
    'RefreshTokenSuspended',
  ],
  introspect: ['AccessTokenInvalid'],
} as const;

export type Reason = (typeof REASONS)[keyof typeof REASONS][number] | (string & {});

/** The OAuth-shaped codes: /device-token's polling errors and the bearer endpoints' `invalid_token`. */
export type OAuthErrorCode =
  | 'authorization_pending'
  | 'slow_down'
  | 'access_denied'
  | 'expired_token'
  | 'invalid_request'
  | 'server_error'
  | 'invalid_token'
  | (string & {});

/** Base of every failure this package throws. */
export class SigninError extends Error {
  override name = 'SigninError';
}

/**
 * A host answered with a failure. `reason` is the spec's reason when the body carried one, `error` the OAuth code;
 * both are undefined for a status-only answer (spec, Errors: some failures have an empty body, e.g. the 401 of a
 * refused client-auth JWT). `body` keeps the whole answer: the claim gate's `claims` and `errand`, the
 * `LegalAgreementRequired` members.
 */
export class SigninApiError extends SigninError {
  override name = 'SigninApiError';
  readonly endpoint: string;
  readonly status: number;
  readonly reason: Reason | undefined;
  readonly error: OAuthErrorCode | undefined;
  readonly body: Record<string, unknown>;
  /** Seconds from `Retry-After`, when the host sent one (429, 503). */
  readonly retryAfter: number | undefined;

  constructor(endpoint: string, status: number, body: Record<string, unknown>, retryAfter?: number) {
    const reason = typeof body.reason === 'string' ? body.reason : undefined;
    const error = typeof body.error === 'string' ? body.error : undefined;
    super(`${endpoint} answered ${status}${reason || error ? ` ${reason ?? error}` : ''}`);
    this.endpoint = endpoint;
    this.status = status;
    this.reason = reason;
    this.error = error;
    this.body = body;
    this.retryAfter = retryAfter;
  }

  /** The claim gate's errand (ClaimConsentRequired, RequiredClaimDataMissing): open `url` in a browser. */
  get errand(): { errandKey: string; url: string; expiresAt: string } | undefined {
    const e = this.body.errand as { errandKey?: unknown; url?: unknown; expiresAt?: unknown } | undefined;
    if (!e || typeof e.url !== 'string' || typeof e.errandKey !== 'string') return undefined;
    return { errandKey: e.errandKey, url: e.url, expiresAt: String(e.expiresAt) };
  }
}

/** No answer arrived (connection refused or reset, timeout, abort). */
export class SigninNetworkError extends SigninError {
  override name = 'SigninNetworkError';
  constructor(
    readonly endpoint: string,
    options: { cause: unknown },
  ) {
    super(
      `${endpoint}: no answer (${options.cause instanceof Error ? options.cause.message : 'network'})`,
      options,
    );
  }
}

/** Why `verify` refused a token; the Express middleware answers 401 `{reason}` with it (503 for the key set). */
export type TokenReason =
  | 'TokenMissing'
  | 'TokenMalformed'
  | 'TokenTypeNotAccepted'
  | 'TokenAudienceInvalid'
  | 'TokenKeyUnknown'
  | 'TokenSignatureInvalid'
  | 'TokenExpired'
  | 'TokenClaimsInvalid'
  /** The request's DPoP proof failed a check of RFC 9449 4.3; the message names it (DpopFailure). */
  | 'DpopProofInvalid'
  /** A DPoP-bound token without a proof by its key, or an unbound token under the DPoP scheme. */
  | 'DpopBindingInvalid'
  | 'KeySetUnavailable';

/** A token `verify` refused. Nothing in a refused token is to be trusted, so nothing of it is carried. */
export class TokenVerificationError extends SigninError {
  override name = 'TokenVerificationError';
  constructor(
    readonly reason: TokenReason,
    detail?: string,
    options?: { cause: unknown },
  ) {
    super(detail ? `${reason}: ${detail}` : reason, options);
  }
}

/**
 * The device flow ended without tokens: `error` is the spec's /device-token code, `aborted` (your signal), or
 * `unsafe_response` (a verification URI or user code not safe to show, so nothing was shown).
 */
export class DeviceFlowError extends SigninError {
  override name = 'DeviceFlowError';
  constructor(
    readonly error: OAuthErrorCode | 'aborted' | 'unsafe_response',
    options?: { cause: unknown },
  ) {
    super(`device flow ended: ${error}`, options);
  }
}
