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

const r = (status: number, body: BodyShape = 'reason'): ReasonAnswer => ({ status, body });

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

/**
 * Where an endpoint answers a reason differently from `REASON_ANSWERS`, by the endpoint's declared path: the spec's
 * native `/errand` failures carry "no reason beyond status" (empty bodies).
 */
export const ENDPOINT_ANSWERS: Readonly<Record<string, Readonly<Partial<Record<Reason, ReasonAnswer>>>>> = {
  '/errand': {
    AccessTokenInvalid: r(401, 'empty'),
    ApplicationNotActive: r(403, 'empty'),
    AccountDisabled: r(403, 'empty'),
  },
};

/** The answer of `reason` at the endpoint declared as `path` (the reason's own unless the endpoint overrides it). */
export function answerOf(reason: Reason, path?: string): ReasonAnswer {
  return (path !== undefined ? ENDPOINT_ANSWERS[path]?.[reason] : undefined) ?? REASON_ANSWERS[reason];
}

/** The status a reason answers with. */
export const statusOf = (reason: Reason): number => REASON_ANSWERS[reason].status;
