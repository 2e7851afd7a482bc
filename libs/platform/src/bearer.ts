// /userinfo and /claim-state of the session and OIDC hosts: live data for an `Authorization: Bearer` access token,
// no body, never stored by any cache and varying by the credential. Each host parses and checks the token itself
// (its own protocol and invalid_token challenge, RFC 6750 3) and names the literal paths in its table.
import type { ZodType } from 'zod';
import type { Cors } from './cors';
import { endpoint, type JsonEndpoint, type Method } from './endpoints';
import { BEARER_HEADERS } from './oauth-answers';
import { ClaimState, UserInfo } from './wire';

/** Bearer failures of /userinfo and /claim-state: `{error: invalid_token}` with a WWW-Authenticate challenge. */
export const BEARER_ERRORS = {
  oauthErrors: { 401: ['invalid_token', 'invalid_dpop_proof'] },
  oauthHeaders: {
    401: { 'WWW-Authenticate': 'The Bearer challenge, or the DPoP one for DPoP-bound tokens.' },
  },
} as const;

/** What a Bearer endpoint reads of its request: the Authorization and DPoP headers as sent, and the method. */
export interface BearerRequest {
  authorization: string | undefined;
  /** The DPoP proof (RFC 9449 7.1) of a token presented as `DPoP <token>`; several headers arrive joined. */
  dpop: string | undefined;
  method: Method;
}

/** One Bearer endpoint: `answer` gets the request's credential headers as sent (undefined when absent). */
interface BearerRoute {
  path: string;
  answer(req: BearerRequest): Promise<unknown>;
  /** CORS of the route (cors.ts); none unless given. */
  cors?: Cors;
}

function bearerEndpoint(method: Method, route: BearerRoute, summary: string, schema: ZodType): JsonEndpoint {
  return endpoint({
    method,
    path: route.path,
    body: { kind: 'none' },
    noStore: true,
    doc: {
      summary,
      answers: [{ schema, headers: { Vary: 'Authorization' } }],
      auth: 'bearer',
      ...BEARER_ERRORS,
    },
    cors: route.cors,
    handle: async (req) => {
      const dpop = req.headers.dpop;
      const presented: BearerRequest = {
        authorization: req.headers.authorization,
        dpop: typeof dpop === 'string' ? dpop : Array.isArray(dpop) ? dpop.join(', ') : undefined,
        method,
      };
      return { json: await route.answer(presented), headers: BEARER_HEADERS };
    },
  });
}

/** The host's /userinfo (GET, and POST where it serves that too) and GET /claim-state, at the paths it names. */
export function bearerProfileEndpoints(routes: {
  userinfo: BearerRoute & { methods: readonly Method[] };
  claimState: BearerRoute;
}): JsonEndpoint[] {
  return [
    ...routes.userinfo.methods.map((method) =>
      bearerEndpoint(method, routes.userinfo, 'Live profile claims of the token’s subject.', UserInfo),
    ),
    bearerEndpoint('GET', routes.claimState, 'Live claim requirements and consent states.', ClaimState),
  ];
}
