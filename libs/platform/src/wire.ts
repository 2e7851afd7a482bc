// The interface spec's wire shapes as zod schemas, for the OpenAPI documents (openapi.ts): the answers hosts send,
// declared beside the endpoints (`doc.answers`). The e2e tests validate every answer they receive against them.
import { z } from 'zod';
import type { Reason } from './errors';

const Requirement = z.enum(['SYNTHETIC_ONLY', 'OFF', 'OPTIONAL', 'REQUIRED', 'SYNTHETIC_FALLBACK']);
const State = z.enum(['UNKNOWN', 'GRANTED', 'DENIED']);
const entry = <R extends z.ZodType>(requirement: R) => z.strictObject({ requirement, state: State });
const Entry = entry(Requirement);

/** The five-key claim view of token-issue answers and the claim-gate 403 (spec: Claim view). */
export const ClaimView = z.strictObject({
  email: Entry,
  firstName: Entry,
  lastName: Entry,
  staticAvatar: Entry,
  animatedAvatar: Entry,
});

/** The connect /refresh view: three keys, both synthetic modes reported as SYNTHETIC. */
export const ConnectClaimView = z.strictObject({
  email: entry(z.enum(['OFF', 'OPTIONAL', 'REQUIRED', 'SYNTHETIC'])),
  firstName: entry(z.enum(['OFF', 'OPTIONAL', 'REQUIRED', 'SYNTHETIC'])),
  lastName: entry(z.enum(['OFF', 'OPTIONAL', 'REQUIRED', 'SYNTHETIC'])),
});

/** The /claim-state view: the OIDC-style names. */
export const ClaimStateView = z.strictObject({
  email: Entry,
  given_name: Entry,
  family_name: Entry,
  picture: Entry,
  picture_animated: Entry,
});

/** Spec: Errand. */
export const Errand = z.strictObject({
  errandKey: z.string().regex(/^ernd_/),
  url: z.url(),
  expiresAt: z.iso.datetime({ offset: true }),
});

const AgreementDocument = z.strictObject({
  schemaVersion: z.literal(1),
  title: z.string(),
  sections: z.array(
    z.strictObject({
      heading: z.string(),
      paragraphs: z.array(z.string()).min(1),
      link: z.strictObject({ label: z.string(), url: z.url() }).optional(),
    }),
  ),
});

const AgreementLocale = z.strictObject({
  contentSha256: z.string().regex(/^[0-9a-f]{64}$/),
  versionUrl: z.url(),
  document: AgreementDocument,
});

/** Spec: Agreement (basic terms), carried by the LegalAgreementRequired 403. */
export const Agreement = z.strictObject({
  documentType: z.literal('BASIC_TERMS'),
  requiredRevision: z.int().min(1),
  requiredAcceptanceEpoch: z.int().min(1),
  locales: z.strictObject({ 'en-US': AgreementLocale, 'zh-CN': AgreementLocale }),
});

const Jwt = z.string().min(1);

/** Direct issue, /redeem and /device-token: `{claims, applicationAnchor, accessToken, refreshToken}`. */
export const IssuedTokens = z.strictObject({
  claims: ClaimView,
  applicationAnchor: z.string(),
  accessToken: Jwt,
  refreshToken: Jwt,
});

/** Session /refresh: `{claims, accessToken, refreshToken}`. */
export const RotatedTokens = z.strictObject({ claims: ClaimView, accessToken: Jwt, refreshToken: Jwt });

/** Connect /refresh: the three-key view. */
export const ConnectRotatedTokens = z.strictObject({
  claims: ConnectClaimView,
  accessToken: Jwt,
  refreshToken: Jwt,
});

/** Session /introspect. */
export const Introspection = z.strictObject({
  status: z.enum(['active', 'revoked', 'expired', 'not_found']),
  recommendedRecheckSeconds: z.int(),
  /** A DPoP-bound token's key (RFC 9449 6.2, CONTRACTS "OIDC for agents"): a resource checks the proof against it. */
  cnf: z.strictObject({ jkt: z.string() }).optional(),
});

/** Session /logout and /revoke-all. */
export const Revoked = z.strictObject({ revoked: z.boolean() });

/** Spec: JWK Set (per application): RSA signing keys, at most 32, no private members. */
export const JwkSet = z.strictObject({
  keys: z
    .array(
      z.strictObject({
        kty: z.literal('RSA'),
        n: z.string(),
        e: z.string(),
        kid: z.string(),
        use: z.literal('sig'),
        alg: z.literal('RS256'),
      }),
    )
    .max(32),
});

/** Session /userinfo (spec table) and the OIDC one (the same members). */
export const UserInfo = z.strictObject({
  sub: z.string().min(1),
  email: z.email().optional(),
  email_verified: z.boolean().optional(),
  name: z.string().optional(),
  given_name: z.string().optional(),
  family_name: z.string().optional(),
  picture: z.url().optional(),
  picture_animated: z.url().optional(),
});

/** /claim-state. */
export const ClaimState = z.strictObject({ sub: z.string().min(1), claims: ClaimStateView });

// ---- The JSON answers of the pages' own script calls (page endpoints) ----

const B64url = z.string().regex(/^[A-Za-z0-9_-]+$/);
const UserVerification = z.enum(['required', 'preferred', 'discouraged']);
const CredentialDescriptor = z.strictObject({
  id: B64url,
  type: z.literal('public-key'),
  transports: z.array(z.string()).optional(),
});
const WebAuthnExtensions = z.record(z.string(), z.unknown());

/** A passkey sign-in's options (WebAuthn PublicKeyCredentialRequestOptionsJSON, as @simplewebauthn/server makes). */
export const PasskeyRequestOptions = z.strictObject({
  challenge: B64url,
  rpId: z.string().optional(),
  allowCredentials: z.array(CredentialDescriptor).optional(),
  timeout: z.int().min(0).optional(),
  userVerification: UserVerification.optional(),
  hints: z.array(z.string()).optional(),
  extensions: WebAuthnExtensions.optional(),
});

/** A passkey registration's options (WebAuthn PublicKeyCredentialCreationOptionsJSON). */
export const PasskeyCreationOptions = z.strictObject({
  challenge: B64url,
  rp: z.strictObject({ name: z.string(), id: z.string().optional() }),
  user: z.strictObject({ id: B64url, name: z.string(), displayName: z.string() }),
  pubKeyCredParams: z.array(z.strictObject({ alg: z.int(), type: z.literal('public-key') })).min(1),
  timeout: z.int().min(0).optional(),
  attestation: z.enum(['none', 'indirect', 'direct', 'enterprise']).optional(),
  excludeCredentials: z.array(CredentialDescriptor).optional(),
  authenticatorSelection: z
    .strictObject({
      authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
      residentKey: z.enum(['discouraged', 'preferred', 'required']).optional(),
      requireResidentKey: z.boolean().optional(),
      userVerification: UserVerification.optional(),
    })
    .optional(),
  hints: z.array(z.string()).optional(),
  extensions: WebAuthnExtensions.optional(),
});

/** A finished passkey ceremony: the page the script goes to next (a path on the same host). */
export const PasskeyNext = z.strictObject({ next: z.string().regex(/^\/(?!\/)/) });

/** connect's errand status poll (GET /errands/{errandKey}/status). */
export const ErrandStatus = z.strictObject({
  state: z.enum(['pending', 'completed', 'expired']),
  expiresAt: z.iso.datetime({ offset: true }),
});

/**
 * The error of a page script call (pageErrors' JSON branch): a page message key (`sessionExpired`) or a reason of
 * the table (`TooManyAttempts`).
 */
export const PageCallError = z.strictObject({ reason: z.string().min(1) });

/** The issuance refusals every token-issuing or rotating endpoint may answer (spec, Errors). */
export const ISSUANCE_REFUSALS = [
  'ApplicationNotActive',
  'AccountDisabled',
  'AccountDeleted',
  'ClaimConsentRequired',
  'RequiredClaimDataMissing',
  'LegalAgreementRequired',
  'EmailDomainBlocked',
  'EmailDomainRequiresSso',
  'SsoAuthorityConflict',
  'AuthorizationArtifactStale',
] as const satisfies readonly Reason[];
