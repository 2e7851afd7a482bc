// Scopes, response types and the authentication references of the OIDC host (CONTRACTS "OIDC host").

export const SCOPES_SUPPORTED = ['openid', 'profile', 'email', 'offline_access'] as const;
export type Scope = (typeof SCOPES_SUPPORTED)[number];

/** Response types in canonical word order; a client registers a subset (`oidc-client create --response-type`). */
export const OIDC_RESPONSE_TYPES_SUPPORTED = [
  'code',
  'id_token',
  'id_token token',
  'code id_token',
  'code id_token token',
] as const;
export type ResponseType = (typeof OIDC_RESPONSE_TYPES_SUPPORTED)[number];

/**
 * `amr` for a passkey sign-in (RFC 8176): `hwk`, proof of possession of a key held by an authenticator, and
 * `user`, the user-presence test every WebAuthn assertion carries. A sign-in whose assertion also verified the
 * user (a PIN or biometric; the UV flag) may add `pin` or `fpt`; the sign-in pages pass what they saw.
 */
export const PASSKEY_AMR: readonly string[] = ['hwk', 'user'];

/** `acr` of a passkey sign-in: `phr`, phishing-resistant authentication (OpenID EAP ACR Values 1.0). */
export const PASSKEY_ACR = 'phr';

/** The space-separated scope parameter as a set of known scopes (unknown scopes are dropped, RFC 6749 3.3). */
export function parseScope(scope: string): Scope[] {
  const words = new Set(scope.split(' ').filter(Boolean));
  return SCOPES_SUPPORTED.filter((s) => words.has(s));
}
