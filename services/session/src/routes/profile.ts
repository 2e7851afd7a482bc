// GET /userinfo and GET /claim-state: Bearer access token, live data, never cached.
import { bearerProfileEndpoints } from '@svc/platform';
import type { SessionDeps } from '../deps';
import { bearerToken, claimState, userinfo } from '../domain/profile';

export const profileEndpoints = (deps: SessionDeps) =>
  bearerProfileEndpoints({
    userinfo: { path: '/userinfo', methods: ['GET'], answer: async (a) => userinfo(deps, bearerToken(a)) },
    claimState: { path: '/claim-state', answer: async (a) => claimState(deps, bearerToken(a)) },
  });
