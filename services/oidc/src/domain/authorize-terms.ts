// The vocabulary of the authorization endpoint: response modes and the error codes of OAuth 2.0 4.1.2.1 and OpenID
// Connect Core 3.1.2.6, with the rules that tie a response type to its default response mode (the response types
// themselves: @svc/token-core's OIDC_RESPONSE_TYPES and parseResponseType).

export const RESPONSE_MODES = ['query', 'fragment', 'form_post'] as const;
export type ResponseMode = (typeof RESPONSE_MODES)[number];

/** Error codes an authorization response (or the error page) may carry. */
export type AuthorizeErrorCode =
  // OAuth 2.0 (RFC 6749 4.1.2.1)
  | 'invalid_request'
  | 'unauthorized_client'
  | 'access_denied'
  | 'unsupported_response_type'
  | 'invalid_scope'
  | 'server_error'
  | 'temporarily_unavailable'
  // OpenID Connect Core 3.1.2.6
  | 'interaction_required'
  | 'login_required'
  | 'account_selection_required'
  | 'consent_required'
  | 'request_not_supported'
  | 'request_uri_not_supported'
  | 'registration_not_supported'
  // Page-only: shown by the OIDC host itself, never sent to a redirect URI
  | 'invalid_client'
  | 'invalid_redirect_uri';

/** True when the (possibly unparsed) response type returns an ID token or access token from /authorize. */
export function returnsFrontChannelToken(rawResponseType: string): boolean {
  return rawResponseType.split(' ').some((w) => w === 'id_token' || w === 'token');
}

/**
 * The default response mode: query for `code` alone, fragment for every type that returns a token from the
 * authorization endpoint (a token in a query string would reach server logs and Referer headers).
 */
export function defaultResponseMode(rawResponseType: string): ResponseMode {
  return returnsFrontChannelToken(rawResponseType) ? 'fragment' : 'query';
}
