// POST /token: a form body (application/x-www-form-urlencoded), client authentication, then the grant the form
// names (domain/token-grant.ts). Every answer, success or error, is no-store; every error is an OAuth body
// {error, error_description} (a body the form reader or schema refuses is invalid_request, not the fleet's
// InvalidBody).
import { z } from 'zod';
import type { OidcDeps } from '../deps';
import { proofKeyAt } from '../domain/dpop';
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
  token_type: z.enum(['Bearer', 'DPoP']),
  expires_in: z.int().min(1),
  id_token: z.string().min(1),
  refresh_token: z.string().min(1).optional(),
  scope: z.string(),
});

/** The DPoP header as received (several arrive joined by ", ", which the verifier refuses); undefined when absent. */
export function dpopHeader(headers: Record<string, unknown>): string | undefined {
  const value = headers.dpop;
  return typeof value === 'string' ? value : Array.isArray(value) ? value.join(', ') : undefined;
}

export const tokenEndpoints = (deps: OidcDeps) => [
  clientEndpoint(deps, {
    path: '/token',
    schema: tokenForm,
    maxFields: 20,
    doc: {
      summary:
        'The authorization-code, refresh-token and device-code grants; with a DPoP proof (RFC 9449) the access token is bound to its key.',
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
          'invalid_dpop_proof',
        ],
        401: ['invalid_client'],
        503: ['temporarily_unavailable'],
      },
    },
    handle: async (client, form, req) => {
      const dpopJkt = await proofKeyAt(deps, client, dpopHeader(req.headers), '/token');
      return { json: await tokenGrant(deps, client, form, req.ip, dpopJkt) };
    },
  }),
];
