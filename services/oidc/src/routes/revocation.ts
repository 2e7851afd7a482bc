// POST /revoke (RFC 7009, discovery's revocation_endpoint): a form with `token` and an optional
// `token_type_hint`, the client authenticated exactly as at /token. Answers an empty JSON object with 200 whatever
// the token was (RFC 7009 2.2); invalid_client (401) and invalid_request (400) as /token answers them.
import { z } from 'zod';
import type { OidcDeps } from '../deps';
import { revokeToken } from '../domain/revocation';
import { clientEndpoint, field } from './client-endpoint';

const revocationForm = z.object({
  token: field,
  token_type_hint: field,
  client_id: field,
  client_secret: field,
});

export const revocationEndpoints = (deps: OidcDeps) => [
  clientEndpoint(deps, {
    path: '/revoke',
    schema: revocationForm,
    maxFields: 10,
    doc: {
      summary: 'Token revocation (RFC 7009): ends the session of a refresh or access token of this client.',
      answers: [{ schema: z.strictObject({}) }],
      oauthErrors: { 400: ['invalid_request'], 401: ['invalid_client'], 503: ['temporarily_unavailable'] },
    },
    handle: async (client, form) => {
      await revokeToken(deps, client, form.token);
      return { json: {} };
    },
  }),
];
