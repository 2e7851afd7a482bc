// GET and POST /userinfo (OpenID Connect Core 5.3.1: POST takes the token from the header too, the body is not
// read), GET /claim-state: Bearer access token in the Authorization header (a DPoP-bound one as `DPoP` with its
// proof, RFC 9449 7), live data, never cached
// (Cache-Control no-store, Vary Authorization); failures are 401 invalid_token with a Bearer challenge.
import { bearerProfileEndpoints } from '@svc/platform';
import type { OidcDeps } from '../deps';
import { tokenClientCors } from '../domain/cors';
import { claimState, userinfo } from '../domain/userinfo';

export const userinfoEndpoints = (deps: OidcDeps) =>
  bearerProfileEndpoints({
    userinfo: {
      path: '/userinfo',
      methods: ['GET', 'POST'],
      answer: (req) => userinfo(deps, req),
      cors: tokenClientCors(deps),
    },
    claimState: { path: '/claim-state', answer: (req) => claimState(deps, req) },
  });
