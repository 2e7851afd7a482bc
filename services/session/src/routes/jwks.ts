// GET /applications/{anchor}/jwks.json: the public JWK Set, cacheable no longer than the prepublication window.
import { type FastRoute, ServiceError } from '@svc/platform';
import type { SessionDeps } from '../deps';

const ANCHOR = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

export function jwksRoute(deps: SessionDeps): FastRoute {
  const cacheControl = `public, max-age=${deps.jwksMaxAgeSeconds}`;
  return {
    method: 'GET',
    path: '/applications/:anchor/jwks.json',
    handle: async (req) => {
      const anchor = req.params.anchor!;
      if (anchor.length < 3 || anchor.length > 64 || !ANCHOR.test(anchor)) {
        throw new ServiceError('ApplicationNotFound', 404);
      }
      const app = await deps.apps.get(anchor);
      if (!app) throw new ServiceError('ApplicationNotFound', 404);
      const { body } = await deps.keyRing.jwks(app.id);
      return { raw: body, headers: { 'Cache-Control': cacheControl } };
    },
  };
}
