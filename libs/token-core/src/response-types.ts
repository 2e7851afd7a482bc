// The OpenID Connect response types the platform serves: the OIDC host's /authorize and discovery, and the admin
// tool's `oidc-client create --response-type` (a client registers a subset) read this one list.

/** Every response type served, each in its canonical word order (code, id_token, token). */
export const OIDC_RESPONSE_TYPES = [
  'code',
  'id_token',
  'id_token token',
  'code id_token',
  'code id_token token',
] as const;
export type OidcResponseType = (typeof OIDC_RESPONSE_TYPES)[number];

const ORDER = ['code', 'id_token', 'token'];

/**
 * The canonical response type a `response_type` value names, or undefined when it is not one served. Word order is
 * not significant (OAuth 2.0 Multiple Response Type Encoding Practices 3); a repeated word is not a response type.
 */
export function parseResponseType(raw: string): OidcResponseType | undefined {
  const words = raw.split(' ').filter(Boolean);
  if (new Set(words).size !== words.length) return undefined;
  const canonical = [...words].sort((a, b) => ORDER.indexOf(a) - ORDER.indexOf(b)).join(' ');
  return (OIDC_RESPONSE_TYPES as readonly string[]).includes(canonical)
    ? (canonical as OidcResponseType)
    : undefined;
}
