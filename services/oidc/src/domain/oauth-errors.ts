// The OAuth-shaped errors of the OIDC host ({error, error_description}, Cache-Control no-store), one class per
// code, each fixing its own status (RFC 6749 5.2, RFC 6750 3.1, OpenID Connect Core 3.1.2.6).
import { BEARER_HEADERS, OAuthError } from '@svc/platform';

export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'invalid_token'
  | 'server_error'
  | 'temporarily_unavailable';

const described = (description?: string) => (description ? { error_description: description } : {});

/** The class of a 400 error whose whole content is its code and a description (RFC 6749 5.2). */
function badRequest(code: OAuthErrorCode) {
  return class extends OAuthError {
    constructor(description: string) {
      super(code, 400, described(description));
    }
  };
}

export class InvalidRequest extends badRequest('invalid_request') {}

/** 401; a client that tried HTTP Basic gets the Basic challenge back (RFC 6749 5.2). */
export class InvalidClient extends OAuthError {
  constructor(description: string, triedBasic = false) {
    super(
      'invalid_client',
      401,
      described(description),
      triedBasic ? { 'WWW-Authenticate': 'Basic realm="oidc", charset="UTF-8"' } : {},
    );
  }
}

export class InvalidGrant extends badRequest('invalid_grant') {}

/** A requested scope exceeds what was granted (RFC 6749 5.2, for the refresh grant's `scope`). */
export class InvalidScope extends badRequest('invalid_scope') {}

export class UnauthorizedClient extends badRequest('unauthorized_client') {}

export class UnsupportedGrantType extends badRequest('unsupported_grant_type') {}

export class TemporarilyUnavailable extends OAuthError {
  constructor() {
    super('temporarily_unavailable', 503, described('try again shortly'), { 'Retry-After': '5' });
  }
}

/**
 * 401 invalid_token with its Bearer challenge (RFC 6750 3): a request that carried no token at all gets the
 * challenge without an error code (3.1), every other failure names invalid_token.
 */
export class InvalidToken extends OAuthError {
  constructor(description: string, carriedToken = true) {
    super('invalid_token', 401, described(description), {
      ...BEARER_HEADERS,
      'WWW-Authenticate': carriedToken
        ? `Bearer realm="oidc", error="invalid_token", error_description="${description}"`
        : 'Bearer realm="oidc"',
    });
  }
}
