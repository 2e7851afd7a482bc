// GET /applications/{anchor}/jwks.json: the public JWK Set, cacheable no longer than the prepublication window.
import { ServiceError } from '@svc/platform';
import { Router } from 'express';
import type { SessionDeps } from '../deps';

const ANCHOR = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

export function jwksRoutes(deps: SessionDeps): Router {
  const router = Router();
  router.get('/applications/:anchor/jwks.json', async (req, res) => {
    const anchor = req.params.anchor;
    if (anchor.length < 3 || anchor.length > 64 || !ANCHOR.test(anchor)) {
      throw new ServiceError('ApplicationNotFound', 404);
    }
    const app = await deps.apps.get(anchor);
    if (!app) throw new ServiceError('ApplicationNotFound', 404);
    const { body } = await deps.keyRing.jwks(app.id);
    res
      .status(200)
      .set('Cache-Control', `public, max-age=${deps.jwksMaxAgeSeconds}`)
      .type('application/json')
      .send(body);
  });
  return router;
}
