// Every reason's HTTP status and body shape, in one table: a throw site names the reason, the table answers for it.
import type { Reason } from './errors';

/**
 * The body a reason answers with: `reason` is `{reason}` (with `message` on the Session API), `claim-gate` adds
 * `claims` and `errand`, `agreement` adds `requiredRevision`, `termsUrl`, `confirmation` and `agreement` (spec,
 * Errors), and `empty` is the status alone with no Content-Type.
 */
export type BodyShape = 'reason' | 'claim-gate' | 'agreement' | 'empty';

export interface ReasonAnswer {
  status: number;
  body: BodyShape;
}

/** A named condition under which a reason answers otherwise (an InvalidBody too large to read is a 413). */
export type Variant = 'tooLarge';

const r = (status: number, body: BodyShape = 'reason'): ReasonAnswer => ({ status, body });

/** The answers of a reason's variants (`new ServiceError(reason, {variant})`). */
export const VARIANT_ANSWERS: Readonly<Partial<Record<Reason, Readonly<Record<Variant, ReasonAnswer>>>>> = {
  InvalidBody: { tooLarge: r(413) },
};

/**
 * The spec fixes the 403 of direct-issue refusals and claim gates and the empty 401 of session `/refresh`; the
 * other statuses are the ones the hosts' docs publish (docs/connect.md, docs/native.md, docs/session.md).
 */
export const REASON_ANSWERS: Readonly<Record<Reason, ReasonAnswer>> = {
  // Shared
  InvalidBody: r(400),
  TooManyAttempts: r(429),
  TemporarilyUnavailable: r(503),
  NotFound: r(404),
  // Issuance refusals
  ApplicationNotFound: r(404),
  ApplicationNotActive: r(403),
  AccountNotFound: r(404),
  AccountDisabled: r(403),
  AccountDeleted: r(403),
  AuthenticationNotFound: r(404),
  ClaimConsentRequired: r(403, 'claim-gate'),
  RequiredClaimDataMissing: r(403, 'claim-gate'),
  LegalAgreementRequired: r(403, 'agreement'),
  LegalAgreementRevisionMismatch: r(409),
  EmailDomainBlocked: r(403),
  EmailDomainRequiresSso: r(403),
  SsoAuthorityConflict: r(403),
  AuthorizationArtifactStale: r(409),
  Layer1Denied: r(403),
  Layer2Denied: r(403),
  Layer3Denied: r(403),
  // Native
  InvalidAccessKeyIdentifier: r(400),
  InvalidAccessKeySecret: r(400),
  AccessKeyDirectDenied: r(401),
  PublicKeyDirectDenied: r(401),
  PublicKeyAssertionReplayed: r(409),
  ReplayProtectionAlreadySeen: r(409),
  InvalidPlatformTicket: r(400),
  PlatformTicketRejected: r(401),
  // Connect
  InquiryNotFound: r(404),
  InquiryExpired: r(410),
  InquiryNotRealized: r(409),
  InquiryAlreadyRedeemed: r(409),
  RefreshTokenNotFound: r(401),
  RefreshTokenRotationRaceLost: r(401),
  ClientAuthDenied: r(401, 'empty'),
  // Session
  RefreshTokenInvalid: r(401),
  RefreshTokenInvalidType: r(401),
  RefreshTokenInvalidSignature: r(401),
  RefreshTokenSuspended: r(401),
  RefreshTokenExpired: r(401),
  RefreshTokenRevoked: r(401),
  RefreshTokenFamilyCompromised: r(401),
  AccessTokenInvalid: r(401),
};

/** Where an endpoint (by host and declared path) answers a reason otherwise than `REASON_ANSWERS`. */
export interface EndpointAnswers {
  /** The host (`HostAppOptions.name`); any host when absent. */
  host?: string;
  /** The declared paths it covers. */
  paths: RegExp;
  why: string;
  answers: Readonly<Partial<Record<Reason, ReasonAnswer>>>;
}

export const ENDPOINT_ANSWERS: ReadonlyArray<EndpointAnswers> = [
  {
    host: 'native',
    paths: /^\/errand$/,
    why: 'the spec: /errand failures carry no reason beyond the status',
    answers: {
      AccessTokenInvalid: r(401, 'empty'),
      ApplicationNotActive: r(403, 'empty'),
      AccountDisabled: r(403, 'empty'),
    },
  },
  {
    host: 'session',
    paths: /^\/refresh$/,
    why: 'the spec: an unrecoverable rotation conflict of private classification is an empty 401 on session /refresh',
    answers: { RefreshTokenRotationRaceLost: r(401, 'empty') },
  },
  {
    paths: /\/passkey\/(authentication|registration)(-options)?$/,
    why: 'a refused passkey ceremony is a failed authentication (401, docs/connect.md), not an unavailable authority',
    answers: { AuthenticationNotFound: r(401) },
  },
];

/** Where an error is answered: the host and the endpoint's declared path. */
export interface AnswerSite {
  host?: string;
  path?: string;
}

/** The answer of `reason` (in `variant`) at `site`: the endpoint's own if the table has one, else the reason's. */
export function answerOf(reason: Reason, site: AnswerSite = {}, variant?: Variant): ReasonAnswer {
  if (variant) {
    const v = VARIANT_ANSWERS[reason]?.[variant];
    if (v) return v;
  }
  const { host, path } = site;
  if (path !== undefined) {
    for (const e of ENDPOINT_ANSWERS) {
      if ((e.host === undefined || e.host === host) && e.paths.test(path) && e.answers[reason]) {
        return e.answers[reason]!;
      }
    }
  }
  return REASON_ANSWERS[reason];
}

/** The status a reason answers with. */
export const statusOf = (reason: Reason): number => REASON_ANSWERS[reason].status;
