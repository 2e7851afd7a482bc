// POST /register, dynamic client registration (RFC 7591) with an initial access token (OIDC_REGISTRATION=
// initial-access-token; not served when off): counted against the client address first, then the token (401
// invalid_token before the body is looked at), then the metadata (domain/registration.ts). JSON in, JSON out,
// never stored; a body that is not a JSON object is invalid_client_metadata.
import { endpoint, isDependencyFailure, type JsonEndpoint, OAuthError, ServiceError } from '@svc/platform';
import { z } from 'zod';
import type { OidcDeps } from '../deps';
import { TemporarilyUnavailable } from '../domain/oauth-errors';
import { registerClient, registrationTokenOf } from '../domain/registration';

/** RFC 7591 3.2.1: the client information response (the metadata as registered beside these). */
const ClientInformation = z.looseObject({
  client_id: z.string().min(1),
  client_secret: z.string().min(1).optional(),
  client_id_issued_at: z.int(),
  client_secret_expires_at: z.literal(0).optional(),
  token_endpoint_auth_method: z.enum(['none', 'client_secret_basic']),
  redirect_uris: z.array(z.string()),
  grant_types: z.array(z.string()),
  response_types: z.array(z.string()),
});

function asOAuth(err: unknown): unknown {
  // Too large stays the fleet's 413 (RFC 7591 names no error for it).
  if (err instanceof ServiceError && err.reason === 'InvalidBody' && err.variant !== 'tooLarge') {
    return new OAuthError('invalid_client_metadata', { description: 'the body must be a JSON object' });
  }
  if (isDependencyFailure(err) || (err instanceof ServiceError && err.reason === 'TemporarilyUnavailable')) {
    return new TemporarilyUnavailable();
  }
  return err;
}

export function registerEndpoints(deps: OidcDeps): JsonEndpoint<Record<string, unknown>, unknown>[] {
  if (deps.oidc.registration === 'off') return [];
  return [
    endpoint({
      method: 'POST',
      path: '/register',
      body: { kind: 'json', schema: z.record(z.string(), z.unknown()), limit: 16 * 1024 },
      noStore: true,
      doc: {
        summary:
          'Dynamic client registration (RFC 7591) with an initial access token from `oidc-client registration-token create`.',
        auth: 'bearer',
        answers: [{ status: 201, schema: ClientInformation }],
        reasons: ['TooManyAttempts', 'InvalidBody'],
        oauthErrors: {
          400: ['invalid_redirect_uri', 'invalid_client_metadata'],
          401: ['invalid_token'],
          503: ['temporarily_unavailable'],
        },
        oauthHeaders: {
          401: { 'WWW-Authenticate': 'Bearer challenge (RFC 6750 3).' },
          503: { 'Retry-After': 'Seconds to wait before retrying.' },
        },
      },
      mapError: asOAuth,
      authenticate: async (req) => {
        await deps.ports.registerLimit.consume(req.ip);
        return registrationTokenOf(deps, req.headers.authorization);
      },
      handle: async (req) => {
        const userAgent =
          typeof req.headers['user-agent'] === 'string' ? req.headers['user-agent'] : undefined;
        const json = await registerClient(deps, req.auth, req.body, { sourceAddress: req.ip, userAgent });
        return { status: 201, json };
      },
    }),
  ];
}
