// POST /revoke (RFC 7009, discovery's revocation_endpoint): a form with `token` and an optional
// `token_type_hint`, the client authenticated exactly as at /token. Answers an empty JSON object with 200 whatever
// the token was (RFC 7009 2.2); invalid_client (401) and invalid_request (400) as /token answers them.
import { endpoint } from '@svc/platform';
import { z } from 'zod';
import type { OidcDeps } from '../deps';
import { authenticateClient } from '../domain/client-auth';
import { presentingClientCors } from '../domain/cors';
import { revokeToken } from '../domain/revocation';
import { asOAuth, field } from './token';

const revocationForm = z.object({
  token: field,
  token_type_hint: field,
  client_id: field,
  client_secret: field,
});

export function revocationEndpoints(deps: OidcDeps) {
  return [
    endpoint({
      method: 'POST',
      path: '/revoke',
      body: { kind: 'form', schema: revocationForm, limit: 16 * 1024, maxFields: 10 },
      noStore: true,
      doc: {
        summary: 'Token revocation (RFC 7009): ends the session of a refresh or access token of this client.',
        answers: [{ schema: z.strictObject({}) }],
        auth: 'clientSecret',
        oauthErrors: { 400: ['invalid_request'], 401: ['invalid_client'], 503: ['temporarily_unavailable'] },
        oauthHeaders: {
          401: { 'WWW-Authenticate': 'Basic challenge when Basic credentials were tried.' },
          503: { 'Retry-After': 'Seconds to wait before retrying.' },
        },
      },
      mapError: asOAuth,
      cors: presentingClientCors(deps),
      handle: async (req) => {
        const client = await authenticateClient(deps, {
          authorization: req.headers.authorization,
          clientId: req.body.client_id,
          clientSecret: req.body.client_secret,
        });
        await revokeToken(deps, client, req.body.token);
        return { json: {} };
      },
    }),
  ];
}
