// POST /par, the pushed authorization request endpoint (RFC 9126): the client authenticates as at /token (a public
// client sends client_id), pushes the parameters it would send to /authorize, and gets a request_uri for one use
// within 60 s (domain/pushed-request.ts). Errors are the token endpoint's JSON (RFC 9126 2.3), never a redirect.
import { z } from 'zod';
import type { OidcDeps } from '../deps';
import { proofKeyAt } from '../domain/dpop';
import { type PushBinding, pushAuthorizationRequest } from '../domain/pushed-request';
import { clientEndpoint, field } from './client-endpoint';
import { dpopHeader } from './token';

/** Any authorization parameter as sent (unknown ones are ignored, as at /authorize); a repeat is invalid_request. */
const parForm = z.record(z.string().max(64), field);

/** RFC 9126 2.2. */
const PushedResponse = z.strictObject({
  request_uri: z.string().regex(/^urn:ietf:params:oauth:request_uri:[A-Za-z0-9_-]+$/),
  expires_in: z.int().min(1),
});

export const parEndpoints = (deps: OidcDeps) => [
  clientEndpoint(deps, {
    path: '/par',
    schema: parForm,
    maxFields: 40,
    doc: {
      summary:
        'Pushed authorization request (RFC 9126): the authorization parameters, checked as /authorize checks them, for one use of the answered request_uri within 60 s.',
      answers: [{ status: 201, schema: PushedResponse }],
      oauthErrors: {
        400: [
          'invalid_request',
          'unauthorized_client',
          'unsupported_response_type',
          'invalid_scope',
          'request_not_supported',
          'request_uri_not_supported',
          'registration_not_supported',
          'invalid_dpop_proof',
        ],
        401: ['invalid_client'],
        503: ['temporarily_unavailable'],
      },
    },
    handle: async (client, form, req) => {
      // DPoP at /par (RFC 9449 10.1): a valid proof's key thumbprint goes into the binding, and the code issued for
      // this request is redeemed only with a proof by that key; a bad proof is 400 invalid_dpop_proof.
      const dpopJkt = await proofKeyAt(deps, client, dpopHeader(req.headers), '/par');
      const binding: PushBinding = dpopJkt ? { dpopJkt } : {};
      return { status: 201, json: await pushAuthorizationRequest(deps, client, form, binding) };
    },
  }),
];
