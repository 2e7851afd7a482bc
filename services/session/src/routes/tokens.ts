// Routes taking a token in a JSON body: /refresh, /introspect, /logout.
import { jsonBody, noStore, parseWith } from '@svc/platform';
import { Router } from 'express';
import { z } from 'zod';
import type { SessionDeps } from '../deps';
import { introspect } from '../domain/introspect';
import { logout } from '../domain/logout';
import { refreshSession } from '../domain/refresh';

const BODY_LIMIT = 16 * 1024;
const token = z.string().min(1).max(8192);
const refreshBody = z.strictObject({ refreshToken: token });
const accessBody = z.strictObject({ accessToken: token });

export function tokenRoutes(deps: SessionDeps): Router {
  const router = Router();
  router.post('/refresh', jsonBody(BODY_LIMIT), async (req, res) => {
    const { refreshToken } = parseWith(refreshBody, req.body);
    const result = await refreshSession(deps, refreshToken);
    noStore(res);
    res.json(result);
  });
  router.post('/introspect', jsonBody(BODY_LIMIT), async (req, res) => {
    const { accessToken } = parseWith(accessBody, req.body);
    const result = await introspect(deps, accessToken);
    noStore(res);
    res.json(result);
  });
  router.post('/logout', jsonBody(BODY_LIMIT), async (req, res) => {
    const { refreshToken } = parseWith(refreshBody, req.body);
    const result = await logout(deps, refreshToken);
    noStore(res);
    res.json(result);
  });
  return router;
}
