// The OpenID Provider metadata (OpenID Connect Discovery 1.0 section 3) the discovery document publishes: every
// endpoint under OIDC_URL, the response types, modes, grants and client authentication methods the host serves.
import { DPOP_ALGS, OIDC_RESPONSE_TYPES } from '@svc/token-core';
import { SCOPES_SUPPORTED } from './scopes';

/** The metadata for issuer `oidcUrl` (no trailing slash). */
export function providerMetadata(
  oidcUrl: string,
  opts: { registration: 'off' | 'initial-access-token' },
): Record<string, unknown> {
  return {
    issuer: oidcUrl,
    authorization_endpoint: `${oidcUrl}/authorize`,
    token_endpoint: `${oidcUrl}/token`,
    userinfo_endpoint: `${oidcUrl}/userinfo`,
    end_session_endpoint: `${oidcUrl}/end-session`,
    revocation_endpoint: `${oidcUrl}/revoke`,
    device_authorization_endpoint: `${oidcUrl}/device-authorization`,
    // RFC 9126: per client (--require-par), so not for every client of this server.
    pushed_authorization_request_endpoint: `${oidcUrl}/par`,
    require_pushed_authorization_requests: false,
    revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    jwks_uri: `${oidcUrl}/.well-known/jwks.json`,
    // RFC 7591, only when served (OIDC_REGISTRATION).
    ...(opts.registration === 'off' ? {} : { registration_endpoint: `${oidcUrl}/register` }),
    claim_state_endpoint: `${oidcUrl}/claim-state`,
    scopes_supported: [...SCOPES_SUPPORTED],
    response_types_supported: [...OIDC_RESPONSE_TYPES],
    response_modes_supported: ['query', 'fragment', 'form_post'],
    grant_types_supported: [
      'authorization_code',
      'implicit',
      'refresh_token',
      'urn:ietf:params:oauth:grant-type:device_code',
    ],
    subject_types_supported: ['pairwise'],
    id_token_signing_alg_values_supported: ['RS256'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    code_challenge_methods_supported: ['S256'],
    // RFC 9449 5.1: /token takes DPoP proofs signed with these (libs/token-core dpop.ts).
    dpop_signing_alg_values_supported: [...DPOP_ALGS],
    // OIDC Back-Channel Logout 1.0: logout tokens to a client's backchannel_logout_uri, naming the ID tokens' sid.
    backchannel_logout_supported: true,
    backchannel_logout_session_supported: true,
    claims_supported: [
      'sub',
      'iss',
      'aud',
      'exp',
      'iat',
      'auth_time',
      'nonce',
      'acr',
      'amr',
      'at_hash',
      'c_hash',
      'sid',
      'email',
      'email_verified',
      'name',
      'given_name',
      'family_name',
      'picture',
      'picture_animated',
    ],
    // What a sign-in can state (libs/signin auth-references.ts); an email-code sign-up states no acr.
    acr_values_supported: ['phrh', 'phr'],
    prompt_values_supported: ['none', 'login', 'consent', 'select_account'],
    // Every authorization response, success or error, carries `iss` (RFC 9207).
    authorization_response_iss_parameter_supported: true,
    ui_locales_supported: ['en-US', 'zh-CN'],
    claims_parameter_supported: false,
    request_parameter_supported: false,
    // Request objects by reference (OIDC Core 6.2) are not fetched; request_uri takes only /par's URNs.
    request_uri_parameter_supported: false,
    require_request_uri_registration: false,
    // No userinfo_signing_alg_values_supported: /userinfo answers plain JSON, never a signed JWT, and the member is
    // optional (Discovery 1.0 section 3); an empty list would claim a signed form with no algorithm.
  };
}
