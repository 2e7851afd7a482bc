// The endpoints a client calls with a form and its /token authentication (/token, /revoke, /device-authorization):
// POST, form body, always no-store, OAuth error bodies (a body the form reader or schema refuses is invalid_request,
// not the fleet's InvalidBody), CORS for the presenting client's web origins, and the client authenticated by the
// method it registered before the handler runs.
import {
  type Answer,
  type EndpointDoc,
  endpoint,
  isDependencyFailure,
  type JsonEndpoint,
  ServiceError,
  storableText,
} from '@svc/platform';
import type { ZodType } from 'zod';
import type { OidcDeps } from '../deps';
import { authenticateClient } from '../domain/client-auth';
import { presentingClientCors } from '../domain/cors';
import { InvalidRequest, TemporarilyUnavailable } from '../domain/oauth-errors';
import type { OidcClient } from '../domain/ports';

/** A form field of these endpoints. */
export const field = storableText().max(8192).optional();

/** Answer headers of these endpoints' refusals (OpenAPI). */
const CLIENT_AUTH_HEADERS = {
  401: { 'WWW-Authenticate': 'Basic challenge when Basic credentials were tried.' },
  429: { 'Retry-After': 'Seconds until the limit admits another request.' },
  503: { 'Retry-After': 'Seconds to wait before retrying.' },
};

function asOAuth(err: unknown): unknown {
  if (err instanceof ServiceError && err.reason === 'InvalidBody') {
    return new InvalidRequest(err.publicMessage ?? 'the body is not a valid form');
  }
  // PostgreSQL or Redis out anywhere on the way (the client's own record read, a grant's store): an OAuth client
  // gets OAuth's temporarily_unavailable with Retry-After (503), never the fleet's reason body.
  if (isDependencyFailure(err) || (err instanceof ServiceError && err.reason === 'TemporarilyUnavailable')) {
    return new TemporarilyUnavailable();
  }
  return err;
}

interface ClientForm {
  client_id?: string;
  client_secret?: string;
}

export function clientEndpoint<B extends ClientForm>(
  deps: OidcDeps,
  declared: {
    path: string;
    schema: ZodType<B>;
    maxFields: number;
    doc: Omit<EndpointDoc, 'auth' | 'oauthHeaders'>;
    handle(
      client: OidcClient,
      form: B,
      req: { ip: string; headers: Record<string, unknown> },
    ): Promise<Answer>;
  },
): JsonEndpoint<B> {
  return endpoint({
    method: 'POST',
    path: declared.path,
    body: { kind: 'form', schema: declared.schema, limit: 16 * 1024, maxFields: declared.maxFields },
    noStore: true,
    doc: { ...declared.doc, auth: 'clientSecret', oauthHeaders: CLIENT_AUTH_HEADERS },
    mapError: asOAuth,
    cors: presentingClientCors(deps),
    handle: async (req) => {
      const client = await authenticateClient(deps, {
        authorization: req.headers.authorization,
        clientId: req.body.client_id,
        clientSecret: req.body.client_secret,
      });
      return declared.handle(client, req.body, req);
    },
  });
}
