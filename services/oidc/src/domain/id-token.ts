// ID tokens (spec "OIDC ID token" and its authorization-response rules), signed with the platform-wide OIDC key,
// never an application key: iss OIDC_URL, aud the client_id, sub the pairwise sector subject (the access token's),
// nonce on initial issuance only, auth_time, at_hash beside an access token, c_hash beside a code, amr and acr, and
// the sign-in session's `sid` (OIDC Back-Channel Logout 1.0: its logout tokens name the same value). No `jti` or
// `azp` (one audience; OIDC Core 2 needs azp only for several).
import { createHash } from 'node:crypto';
import { OIDC_SCOPE } from '@svc/keyring';
import { signJws } from '@svc/token-core';
import { TemporarilyUnavailable } from './oauth-errors';
import type { OidcDomainDeps } from './ports';

export interface IdTokenInput {
  clientId: string;
  /** The pairwise sector subject: the same value as the accompanying access token's `sub`. */
  subject: string;
  /** The sign-in session's `sid` (signInSid): the same for every client and every ID token of one sign-in. */
  sid: string;
  authTime: Date;
  amr: readonly string[];
  acr?: string | null;
  /** The /authorize request's nonce; only on initial issuance (never on a refresh grant). */
  nonce?: string | null;
  /** The access token issued with it: at_hash is its left-half SHA-256 (OpenID Connect Core 3.1.3.6). */
  accessToken?: string;
  /** The code issued with it in an authorization response: c_hash (3.3.2.11). Never from /token. */
  code?: string;
  /** Profile claims, for response_type=id_token only (already filtered by scope, consent and claim policy). */
  profile?: Record<string, unknown>;
}

/** base64url of the left-most half of SHA-256 of the ASCII value (the RS256 rule for at_hash and c_hash). */
export function leftHalfHash(value: string): string {
  return createHash('sha256').update(value, 'ascii').digest().subarray(0, 16).toString('base64url');
}

/**
 * The `sid` of a sign-in session: base64url SHA-256 of the OIDC host's sign-in handle (random, never shown), or of
 * the session row's id for a session without a browser sign-in (device grant). Stable per sign-in, shared by every
 * client it signed into, not guessable, and neither value it is made from. The migration that added
 * oidc_sessions.id_token_sid computes the same for earlier rows.
 */
export function signInSid(browserSessionId: string | null | undefined, sessionSid: string): string {
  return browserSessionId
    ? browserSignInSid(browserSessionId)
    : sha256Base64url(`oidc-sid:session:${sessionSid}`);
}

/** The `sid` of a browser sign-in, from its handle (signInSid with a browser sign-in). */
export function browserSignInSid(handle: string): string {
  return sha256Base64url(`oidc-sid:${handle}`);
}

const sha256Base64url = (source: string) => createHash('sha256').update(source, 'utf8').digest('base64url');

export async function mintIdToken(deps: OidcDomainDeps, input: IdTokenInput): Promise<string> {
  const signer = await deps.keyRing.signer(OIDC_SCOPE);
  if (!signer) throw new TemporarilyUnavailable();
  const iat = Math.floor(deps.clock() / 1000);
  const claims: Record<string, unknown> = {
    ...input.profile,
    iss: deps.oidc.oidcUrl,
    sub: input.subject,
    aud: input.clientId,
    iat,
    exp: iat + deps.oidc.idTokenTtlSeconds,
    auth_time: Math.floor(input.authTime.getTime() / 1000),
    sid: input.sid,
  };
  if (input.nonce) claims.nonce = input.nonce;
  if (input.accessToken) claims.at_hash = leftHalfHash(input.accessToken);
  if (input.code) claims.c_hash = leftHalfHash(input.code);
  if (input.amr.length > 0) claims.amr = [...input.amr];
  if (input.acr) claims.acr = input.acr;
  return signJws(signer, 'JWT', JSON.stringify(claims));
}
