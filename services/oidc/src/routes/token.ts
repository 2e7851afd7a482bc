// POST /token: a form body (application/x-www-form-urlencoded), client authentication, then the grant the form
// names (domain/token-grant.ts). Every answer, success or error, is no-store; every error is an OAuth body
// {error, error_description} (a body the form reader or schema refuses is invalid_request, not the fleet's
// InvalidBody).
import { z } from 'zod';
import type { OidcDeps } from '../deps';
import { tokenGrant } from '../domain/token-grant';
import { clientEndpoint, field } from './client-endpoint';

const tokenForm = z.object({
  grant_type: field,
  client_id: field,
  client_secret: field,
  code: field,
  redirect_uri: field,
  code_verifier: field,
  refresh_token: field,
  scope: field,
  device_code: field,
});

/** The token response (OpenID Connect Core 3.1.3.3). */
const TokenResponse = z.strictObject({
  access_token: z.string().min(1),
  token_type: z.literal('Bearer'),
  expires_in: z.int().min(1),
  id_token: z.string().min(1),
  refresh_token: z.string().min(1).optional(),
  scope: z.string(),
});

export const tokenEndpoints = (deps: OidcDeps) => [
  clientEndpoint(deps, {
    path: '/token',
    schema: tokenForm,
    maxFields: 20,
    doc: {
      summary: 'The authorization-code, refresh-token and device-code grants.',
      answers: [{ schema: TokenResponse }],
      oauthErrors: {
        400: [
          'invalid_request',
          'invalid_grant',
          'unauthorized_client',
          'unsupported_grant_type',
          'invalid_scope',
          'authorization_pending',
          'slow_down',
          'access_denied',
          'expired_token',
        ],
        401: ['invalid_client'],
        503: ['temporarily_unavailable'],
      },
    },
    handle: async (client, form, req) => ({ json: await tokenGrant(deps, client, form, req.ip) }),
  }),
];
