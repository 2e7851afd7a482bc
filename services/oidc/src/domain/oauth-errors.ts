// The OAuth-shaped errors of the OIDC host ({error, error_description}, Cache-Control no-store), one class per
// code; each names its code and description only, the status and headers are the OAuth table's
// (libs/platform/src/oauth-answers.ts; RFC 6749 5.2, RFC 6750 3.1, OpenID Connect Core 3.1.2.6).
import { type OAuthCode, OAuthError } from '@svc/platform';

/** The class of an error whose whole content is its code and a description (RFC 6749 5.2). */
function described(code: OAuthCode) {
  return class extends OAuthError {
    constructor(description: string) {
      super(code, { description });
    }
  };
}

export class InvalidRequest extends described('invalid_request') {}

/** A client that tried HTTP Basic gets the Basic challenge back (RFC 6749 5.2). */
export class InvalidClient extends OAuthError {
  constructor(description: string, triedBasic = false) {
    super('invalid_client', {
      description,
      headers: triedBasic ? { 'WWW-Authenticate': 'Basic realm="oidc", charset="UTF-8"' } : {},
    });
  }
}

export class InvalidGrant extends described('invalid_grant') {}

/** A requested scope exceeds what was granted (RFC 6749 5.2, for the refresh grant's `scope`). */
export class InvalidScope extends described('invalid_scope') {}

export class UnauthorizedClient extends described('unauthorized_client') {}

export class UnsupportedGrantType extends described('unsupported_grant_type') {}

export class TemporarilyUnavailable extends OAuthError {
  constructor() {
    super('temporarily_unavailable', { description: 'try again shortly' });
  }
}

/**
 * invalid_token with its Bearer challenge (RFC 6750 3): a request that carried no token at all gets the challenge
 * without an error code (3.1), every other failure names invalid_token.
 */
export class InvalidToken extends OAuthError {
  constructor(description: string, carriedToken = true, challenge = 'Bearer realm="oidc"') {
    super('invalid_token', {
      description,
      headers: {
        'WWW-Authenticate': carriedToken
          ? `${challenge}, error="invalid_token", error_description="${description}"`
          : challenge,
      },
    });
  }
}

/** The DPoP challenge of a resource (RFC 9449 7.1): the scheme and the algorithms a proof may use. */
export const DPOP_CHALLENGE = 'DPoP realm="oidc", algs="ES256 EdDSA RS256"';

/**
 * A DPoP proof refused (RFC 9449 5, 7.1): 400 at /token and /par; at a resource (/userinfo) 401 with the DPoP
 * challenge naming the error.
 */
export class InvalidDpopProof extends OAuthError {
  constructor(description: string, at: 'token' | 'resource' = 'token') {
    super('invalid_dpop_proof', {
      description,
      ...(at === 'resource'
        ? {
            variant: 'resource' as const,
            headers: {
              'WWW-Authenticate': `${DPOP_CHALLENGE}, error="invalid_dpop_proof", error_description="${description}"`,
            },
          }
        : {}),
    });
  }
}
