// GET /userinfo and GET /claim-state: Bearer access token, live data, never cached.
import { endpoint } from '@svc/platform';
import type { SessionDeps } from '../deps';
import { BEARER_HEADERS, bearerToken, claimState, userinfo } from '../domain/profile';

export const profileEndpoints = (deps: SessionDeps) => [
  endpoint({
    method: 'GET',
    path: '/userinfo',
    body: { kind: 'none' },
    noStore: true,
    handle: async (req) => ({
      json: await userinfo(deps, bearerToken(req.headers.authorization)),
      headers: BEARER_HEADERS,
    }),
  }),
  endpoint({
    method: 'GET',
    path: '/claim-state',
    body: { kind: 'none' },
    noStore: true,
    handle: async (req) => ({
      json: await claimState(deps, bearerToken(req.headers.authorization)),
      headers: BEARER_HEADERS,
    }),
  }),
];
