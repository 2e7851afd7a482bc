// GET /userinfo and GET /claim-state: Bearer access token, live data, never cached.
import { BEARER_ERRORS, ClaimState, endpoint, UserInfo } from '@svc/platform';
import type { SessionDeps } from '../deps';
import { BEARER_HEADERS, bearerToken, claimState, userinfo } from '../domain/profile';

const VARY = { Vary: 'Authorization' };

export const profileEndpoints = (deps: SessionDeps) => [
  endpoint({
    method: 'GET',
    path: '/userinfo',
    body: { kind: 'none' },
    noStore: true,
    doc: {
      summary: 'Live profile claims.',
      answers: [{ schema: UserInfo, headers: VARY }],
      auth: 'bearer',
      ...BEARER_ERRORS,
    },
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
    doc: {
      summary: 'Live claim requirements and consent states.',
      answers: [{ schema: ClaimState, headers: VARY }],
      auth: 'bearer',
      ...BEARER_ERRORS,
    },
    handle: async (req) => ({
      json: await claimState(deps, bearerToken(req.headers.authorization)),
      headers: BEARER_HEADERS,
    }),
  }),
];
