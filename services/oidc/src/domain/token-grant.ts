// POST /token's one decision before a grant runs: which grant the form names (RFC 6749 4.1.3 and 6, RFC 8628 3.4),
// each with the form's fields it reads; a missing grant_type is invalid_request, an unknown one
// unsupported_grant_type. The client has already authenticated (client-auth.ts).
import { DEVICE_CODE_GRANT, deviceCodeGrant } from './device-grant';
import { InvalidRequest, UnsupportedGrantType } from './oauth-errors';
import type { OidcClient, OidcDomainDeps } from './ports';
import { refreshGrant } from './refresh-grant';
import { exchangeCode, type TokenResponse } from './token';

/** The /token form's fields a grant reads (each optional: a grant refuses what it misses). */
export interface TokenForm {
  grant_type?: string;
  code?: string;
  redirect_uri?: string;
  code_verifier?: string;
  refresh_token?: string;
  scope?: string;
  device_code?: string;
}

export async function tokenGrant(
  deps: OidcDomainDeps,
  client: OidcClient,
  form: TokenForm,
  /** The client's address (req.ip): polls of unknown device codes are limited per address. */
  address: string,
  /** The RFC 7638 thumbprint of the request's valid DPoP proof key (domain/dpop.ts), when it carried one. */
  dpopJkt?: string,
): Promise<TokenResponse> {
  switch (form.grant_type) {
    case 'authorization_code':
      return exchangeCode(deps, client, {
        code: form.code,
        redirectUri: form.redirect_uri,
        codeVerifier: form.code_verifier,
        dpopJkt,
      });
    case 'refresh_token':
      return refreshGrant(deps, client, { refreshToken: form.refresh_token, scope: form.scope, dpopJkt });
    case DEVICE_CODE_GRANT:
      return deviceCodeGrant(deps, client, form.device_code, address, dpopJkt);
    case undefined:
      throw new InvalidRequest('grant_type is required');
    default:
      throw new UnsupportedGrantType(
        `grant_type must be authorization_code, refresh_token or ${DEVICE_CODE_GRANT}`,
      );
  }
}
