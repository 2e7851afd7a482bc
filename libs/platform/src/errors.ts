// The one error class hosts throw: the spec's `reason` (its HTTP status is the reason table's) and an optional
// extra body.
import type { Locale } from './locale';
import { type OAuthCode, type OAuthVariant, oauthAnswerOf } from './oauth-answers';
import { type AnswerSite, answerOf, type ReasonAnswer, type Variant } from './reasons';

export type Reason =
  // Shared
  | 'InvalidBody'
  | 'TooManyAttempts'
  | 'TemporarilyUnavailable'
  | 'NotFound'
  // Issuance refusals
  | 'ApplicationNotFound'
  | 'ApplicationNotActive'
  | 'AccountNotFound'
  | 'AccountDisabled'
  | 'AccountDeleted'
  | 'AuthenticationNotFound'
  | 'ClaimConsentRequired'
  | 'RequiredClaimDataMissing'
  | 'LegalAgreementRequired'
  | 'LegalAgreementRevisionMismatch'
  | 'EmailDomainBlocked'
  | 'EmailDomainRequiresSso'
  | 'SsoAuthorityConflict'
  | 'AuthorizationArtifactStale'
  | 'Layer1Denied'
  | 'Layer2Denied'
  | 'Layer3Denied'
  // Native
  | 'InvalidAccessKeyIdentifier'
  | 'InvalidAccessKeySecret'
  | 'AccessKeyDirectDenied'
  | 'PublicKeyDirectDenied'
  | 'PublicKeyAssertionReplayed'
  | 'ReplayProtectionAlreadySeen'
  | 'InvalidPlatformTicket'
  | 'PlatformTicketRejected'
  // Connect
  | 'InquiryNotFound'
  | 'InquiryExpired'
  | 'InquiryNotRealized'
  | 'InquiryAlreadyRedeemed'
  | 'RefreshTokenNotFound'
  | 'RefreshTokenRotationRaceLost'
  | 'ClientAuthDenied'
  // Session
  | 'RefreshTokenInvalid'
  | 'RefreshTokenInvalidType'
  | 'RefreshTokenInvalidSignature'
  | 'RefreshTokenSuspended'
  | 'RefreshTokenExpired'
  | 'RefreshTokenRevoked'
  | 'RefreshTokenFamilyCompromised'
  | 'AccessTokenInvalid';

export interface ServiceErrorOptions {
  /** Extra members of the body beside `reason` (claim-gate claims and errand, agreement bodies). */
  extra?: Record<string, unknown>;
  /**
   * Members of the body in the request's language (e.g. the `confirmation` sentence of LegalAgreementRequired),
   * merged over `extra` by the error mapper with the locale the request's Accept-Language picks.
   */
  localized?: (locale: Locale) => Record<string, unknown>;
  /** Human-readable `message` (Session API errors only). */
  message?: string;
  /** A named condition with its own answer in the reason table (an InvalidBody too large to read). */
  variant?: Variant;
  headers?: Record<string, string>;
  cause?: unknown;
}

export class ServiceError extends Error {
  readonly reason: Reason;
  /** The reason's status in the table (an endpoint may answer otherwise: `answerAt`). */
  readonly status: number;
  readonly extra?: Record<string, unknown>;
  readonly localized?: (locale: Locale) => Record<string, unknown>;
  readonly publicMessage?: string;
  readonly variant?: Variant;
  readonly headers?: Record<string, string>;

  /** Names the reason only: its status and body shape are the reason table's (libs/platform/src/reasons.ts). */
  constructor(reason: Reason, opts: ServiceErrorOptions = {}) {
    super(opts.message ?? reason, { cause: opts.cause });
    this.name = 'ServiceError';
    this.reason = reason;
    this.variant = opts.variant;
    this.status = answerOf(reason, {}, opts.variant).status;
    this.extra = opts.extra;
    this.localized = opts.localized;
    this.publicMessage = opts.message;
    this.headers = opts.headers;
  }

  /** The status and body shape this error answers with at `site` (the host and the endpoint's declared path). */
  answerAt(site?: AnswerSite): ReasonAnswer {
    return answerOf(this.reason, site, this.variant);
  }

  /** The JSON body of this error at `site` in `locale` (default en-US), or undefined for a status-only answer. */
  body(locale: Locale = 'en-US', site?: AnswerSite): Record<string, unknown> | undefined {
    if (this.answerAt(site).body === 'empty') return undefined;
    const body: Record<string, unknown> = { reason: this.reason, ...this.extra, ...this.localized?.(locale) };
    if (this.publicMessage) body.message = this.publicMessage;
    return body;
  }
}

export const invalidBody = (message?: string) => new ServiceError('InvalidBody', { message });

export interface OAuthErrorOptions {
  /** `error_description` of the body. */
  description?: string;
  /** Extra members of the body beside `error` (a poll's `interval`). */
  extra?: Record<string, unknown>;
  /** A named condition with its own answer in the OAuth table (a dependency outage: server_error as a 503). */
  variant?: OAuthVariant;
  /** Headers of this site beside the table's (a WWW-Authenticate challenge naming the realm). */
  headers?: Record<string, string>;
  cause?: unknown;
}

/**
 * OAuth-shaped errors (`{error, error_description?}`) for device, OIDC and Bearer endpoints. Names the code only:
 * its status and headers are the OAuth table's (libs/platform/src/oauth-answers.ts).
 */
export class OAuthError extends Error {
  readonly error: OAuthCode;
  readonly variant?: OAuthVariant;
  /** The table's status of the code (in its variant). */
  readonly status: number;
  readonly extra: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(error: OAuthCode, opts: OAuthErrorOptions = {}) {
    super(opts.description ?? error, { cause: opts.cause });
    this.name = 'OAuthError';
    this.error = error;
    this.variant = opts.variant;
    const answer = oauthAnswerOf(error, opts.variant);
    this.status = answer.status;
    this.extra = {
      ...(opts.description ? { error_description: opts.description } : {}),
      ...opts.extra,
    };
    this.headers = { ...answer.headers, ...opts.headers };
  }
}
