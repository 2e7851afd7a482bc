// GET /userinfo and GET /claim-state: Bearer access token (a DPoP-bound one as `DPoP` with its proof, RFC 9449 7),
// live data, never cached.
import { bearerProfileEndpoints } from '@svc/platform';
import type { SessionDeps } from '../deps';
import { claimState, userinfo } from '../domain/profile';

export const profileEndpoints = (deps: SessionDeps) =>
  bearerProfileEndpoints({
    userinfo: { path: '/userinfo', methods: ['GET'], answer: (req) => userinfo(deps, req) },
    claimState: { path: '/claim-state', answer: (req) => claimState(deps, req) },
  });
