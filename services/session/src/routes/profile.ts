// GET /userinfo and GET /claim-state: Bearer access token, live data, never cached.
import { Router } from 'express';
import type { SessionDeps } from '../deps';
import { BEARER_HEADERS, bearerToken, claimState, userinfo } from '../domain/profile';

export function profileRoutes(deps: SessionDeps): Router {
  const router = Router();
  router.get('/userinfo', async (req, res) => {
    const body = await userinfo(deps, bearerToken(req.headers.authorization));
    res.set(BEARER_HEADERS).json(body);
  });
  router.get('/claim-state', async (req, res) => {
    const body = await claimState(deps, bearerToken(req.headers.authorization));
    res.set(BEARER_HEADERS).json(body);
  });
  return router;
}
