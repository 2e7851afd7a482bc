// Every OAuth error code's HTTP status and headers, in one table: a throw site names the code (and a variant), the
// table answers for it (RFC 6749 5.2, RFC 6750 3.1, RFC 8628 3.5, OpenID Connect Core 3.1.2.6).

/** The OAuth error codes the device, OIDC and Bearer endpoints answer with (`{error, error_description?}`). */
export type OAuthCode =
  // RFC 6749 5.2 (token endpoint)
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  // RFC 6749 4.1.2.1 and OpenID Connect Core 3.1.2.6, answered as JSON by the pushed authorization request
  // endpoint (RFC 9126 2.3) after the same checks as /authorize
  | 'unsupported_response_type'
  | 'request_not_supported'
  | 'request_uri_not_supported'
  | 'registration_not_supported'
  // RFC 7591 3.2.2 (dynamic client registration)
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  // RFC 6750 3.1 (Bearer endpoints)
  | 'invalid_token'
  // RFC 9449 5, 7.1 (a DPoP proof refused)
  | 'invalid_dpop_proof'
  // RFC 8628 3.5 (device polling)
  | 'authorization_pending'
  | 'slow_down'
  | 'access_denied'
  | 'expired_token'
  // The server's own
  | 'server_error'
  | 'temporarily_unavailable';

export interface OAuthAnswer {
  status: number;
  /** Headers the code always carries (a site may add its own, e.g. a WWW-Authenticate challenge). */
  headers: Readonly<Record<string, string>>;
}

/**
 * A named condition under which a code answers otherwise: `outage` is an outage of PostgreSQL or Redis the client
 * may wait out (server_error as a 503 with Retry-After, spec: device polling), where a plain server_error is a
 * failed issuance (500: stop polling and start a new authorization); `rateLimited` is a per-address limit outside
 * polling (slow_down as a 429, the site adding the limiter's Retry-After: /device-authorization); `resource` is a
 * DPoP proof refused at a resource (/userinfo): 401 with its DPoP challenge (RFC 9449 7.1), where /token and /par
 * answer 400 (RFC 9449 5).
 */
export type OAuthVariant = 'outage' | 'rateLimited' | 'resource';

/** Headers of every Bearer answer, success or invalid_token: live data of one credential, never stored. */
export const BEARER_HEADERS: Readonly<Record<string, string>> = {
  'Cache-Control': 'no-store',
  Pragma: 'no-cache',
  Vary: 'Authorization',
};

const a = (status: number, headers: Record<string, string> = {}): OAuthAnswer => ({ status, headers });

/** RFC 6749 5.2: 400 unless the client failed to authenticate (401); RFC 6750 3.1: invalid_token is 401. */
export const OAUTH_ANSWERS: Readonly<Record<OAuthCode, OAuthAnswer>> = {
  invalid_request: a(400),
  invalid_client: a(401),
  invalid_grant: a(400),
  unauthorized_client: a(400),
  unsupported_grant_type: a(400),
  invalid_scope: a(400),
  unsupported_response_type: a(400),
  request_not_supported: a(400),
  request_uri_not_supported: a(400),
  registration_not_supported: a(400),
  invalid_redirect_uri: a(400),
  invalid_client_metadata: a(400),
  invalid_token: a(401, BEARER_HEADERS),
  invalid_dpop_proof: a(400),
  authorization_pending: a(400),
  slow_down: a(400),
  access_denied: a(400),
  expired_token: a(400),
  server_error: a(500),
  temporarily_unavailable: a(503, { 'Retry-After': '5' }),
};

/** The answers of a code's variants (`new OAuthError(code, {variant})`). */
export const OAUTH_VARIANT_ANSWERS: Readonly<
  Partial<Record<OAuthCode, Readonly<Partial<Record<OAuthVariant, OAuthAnswer>>>>>
> = {
  server_error: { outage: a(503, { 'Retry-After': '1' }) },
  slow_down: { rateLimited: a(429) },
  invalid_dpop_proof: { resource: a(401, BEARER_HEADERS) },
};

/** The answer of `code` (in `variant`, when the table has one for it). */
export function oauthAnswerOf(code: OAuthCode, variant?: OAuthVariant): OAuthAnswer {
  return (variant && OAUTH_VARIANT_ANSWERS[code]?.[variant]) || OAUTH_ANSWERS[code];
}
