// Which pages may read the OIDC host's answers (CONTRACTS, "OIDC host for browser applications and devices"):
// discovery and the key set any origin; /token and revocation the origins registered for the client the request
// presents; /userinfo those of the client the access token was issued to. A preflight presents no client, so it is
// answered for an origin some active client registers. CORS only lets a page read an answer: every request is
// still authenticated and answered as before.
import { verifyPresentedToken } from '@svc/issuance';
import type { Cors } from '@svc/platform';
import { TYP } from '@svc/token-core';
import { presentedClientId } from './client-auth';
import type { OidcDomainDeps } from './ports';
import { bearerToken } from './userinfo';

export const PUBLIC_CORS: Cors = { kind: 'public' };

async function registeredFor(
  deps: OidcDomainDeps,
  clientId: string | undefined,
  origin: string,
): Promise<boolean> {
  if (clientId === undefined) return false;
  const client = await deps.ports.clients.get(clientId);
  return client?.active === true && client.webOrigins.includes(origin);
}

/** /token and revocation: the origins of the client named by Basic credentials or the form's client_id. */
export function presentingClientCors(deps: OidcDomainDeps): Cors {
  return {
    kind: 'registered',
    allows: (origin, req) =>
      registeredFor(deps, presentedClientId(req.headers.authorization, req.body), origin),
    preflight: (origin) => deps.ports.clients.originRegistered(origin),
  };
}

/** /userinfo: the origins of the client the (verified) access token's OIDC session was issued to. */
export function tokenClientCors(deps: OidcDomainDeps): Cors {
  return {
    kind: 'registered',
    async allows(origin, req) {
      // A missing or invalid token throws: no client, so no CORS headers (cors.ts allows nothing on a throw).
      const token = bearerToken(req.headers.authorization);
      const { claims } = await verifyPresentedToken(deps, deps.apps, token, { typ: [TYP.accountAccess] });
      if (typeof claims.sid !== 'string') return false;
      return registeredFor(deps, await deps.ports.oidcSessions.clientIdOf(claims.sid), origin);
    },
    preflight: (origin) => deps.ports.clients.originRegistered(origin),
  };
}
