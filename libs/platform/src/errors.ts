// The one error class hosts throw: the spec's `reason`, the HTTP status and an optional extra body.
import type { Locale } from './locale';
import { answerOf, REASON_ANSWERS, type ReasonAnswer } from './reasons';

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
  /** Answer with the status alone: empty body, no Content-Type. */
  emptyBody?: boolean;
  headers?: Record<string, string>;
  cause?: unknown;
}

export class ServiceError extends Error {
  readonly reason: Reason;
  readonly status: number;
  readonly extra?: Record<string, unknown>;
  readonly localized?: (locale: Locale) => Record<string, unknown>;
  readonly publicMessage?: string;
  readonly emptyBody: boolean;
  readonly headers?: Record<string, string>;
  /** The older form: a status or body shape given at the throw site (wins over the table until it is gone). */
  private readonly given: boolean;

  /**
   * `new ServiceError(reason)` or `new ServiceError(reason, opts)` answers with the reason's status and body shape
   * from `REASON_ANSWERS`; an explicit status (the older form) still wins, until every throw site names only the
   * reason.
   */
  constructor(reason: Reason, status?: number | ServiceErrorOptions, options: ServiceErrorOptions = {}) {
    const opts = typeof status === 'object' ? status : options;
    super(opts.message ?? reason, { cause: opts.cause });
    this.name = 'ServiceError';
    this.reason = reason;
    this.status = typeof status === 'number' ? status : REASON_ANSWERS[reason].status;
    this.extra = opts.extra;
    this.localized = opts.localized;
    this.publicMessage = opts.message;
    this.emptyBody = opts.emptyBody ?? REASON_ANSWERS[reason].body === 'empty';
    this.headers = opts.headers;
    this.given = typeof status === 'number' || opts.emptyBody !== undefined;
  }

  /** The status and body shape this error answers with at the endpoint declared as `path`. */
  answerAt(path?: string): ReasonAnswer {
    if (this.given) return { status: this.status, body: this.emptyBody ? 'empty' : 'reason' };
    return answerOf(this.reason, path);
  }

  /** The JSON body of this error in `locale` (default en-US), or undefined for a status-only answer. */
  body(locale: Locale = 'en-US', path?: string): Record<string, unknown> | undefined {
    if (this.answerAt(path).body === 'empty') return undefined;
    const body: Record<string, unknown> = { reason: this.reason, ...this.extra, ...this.localized?.(locale) };
    if (this.publicMessage) body.message = this.publicMessage;
    return body;
  }
}

export const invalidBody = (message?: string) => new ServiceError('InvalidBody', 400, { message });

/** OAuth-shaped errors (`{error, error_description?}`) for device, OIDC and bearer endpoints. */
export class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly status: number,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(error);
    this.name = 'OAuthError';
  }
}
