// POST /token: a form body (application/x-www-form-urlencoded), client authentication, then one grant. Every
// answer, success or error, is no-store; every error is an OAuth body {error, error_description} (a body the form
// reader or schema refuses is invalid_request, not the fleet's InvalidBody).
import { endpoint, ServiceError, storableText } from '@svc/platform';
import { z } from 'zod';
import type { OidcDeps } from '../deps';
import { authenticateClient } from '../domain/client-auth';
import { InvalidRequest, UnsupportedGrantType } from '../domain/oauth-errors';
import { exchangeCode, refreshGrant } from '../domain/token';

const field = storableText().max(8192).optional();
const tokenForm = z.object({
  grant_type: field,
  client_id: field,
  client_secret: field,
  code: field,
  redirect_uri: field,
  code_verifier: field,
  refresh_token: field,
  scope: field,
});

function asOAuth(err: unknown): unknown {
  if (err instanceof ServiceError && err.reason === 'InvalidBody') {
    return new InvalidRequest(err.publicMessage ?? 'the body is not a valid form');
  }
  return err;
}

export function tokenEndpoints(deps: OidcDeps) {
  return [
    endpoint({
      method: 'POST',
      path: '/token',
      body: { kind: 'form', schema: tokenForm, limit: 16 * 1024, maxFields: 20 },
      noStore: true,
      mapError: asOAuth,
      handle: async (req) => {
        const form = req.body;
        const client = await authenticateClient(deps, {
          authorization: req.headers.authorization,
          clientId: form.client_id,
          clientSecret: form.client_secret,
        });
        switch (form.grant_type) {
          case 'authorization_code':
            return {
              json: await exchangeCode(deps, client, {
                code: form.code,
                redirectUri: form.redirect_uri,
                codeVerifier: form.code_verifier,
              }),
            };
          case 'refresh_token':
            return {
              json: await refreshGrant(deps, client, { refreshToken: form.refresh_token, scope: form.scope }),
            };
          case undefined:
            throw new InvalidRequest('grant_type is required');
          default:
            throw new UnsupportedGrantType('grant_type must be authorization_code or refresh_token');
        }
      },
    }),
  ];
}
