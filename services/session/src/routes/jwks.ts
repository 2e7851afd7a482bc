// GET /applications/{anchor}/jwks.json: the public JWK Set, cacheable no longer than the prepublication window.
import { endpoint, JwkSet, ServiceError } from '@svc/platform';
import type { SessionDeps } from '../deps';

const ANCHOR = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

export function jwksEndpoint(deps: SessionDeps) {
  const cacheControl = `public, max-age=${deps.jwksMaxAgeSeconds}`;
  return endpoint({
    method: 'GET',
    path: '/applications/:anchor/jwks.json',
    body: { kind: 'none' },
    noStore: false,
    doc: {
      summary: "The application's public JWK Set.",
      answers: [{ schema: JwkSet, headers: { 'Cache-Control': 'public, max-age=<seconds>' } }],
      reasons: ['ApplicationNotFound'],
    },
    handle: async (req) => {
      const anchor = req.params.anchor!;
      if (anchor.length < 3 || anchor.length > 64 || !ANCHOR.test(anchor)) {
        throw new ServiceError('ApplicationNotFound');
      }
      const app = await deps.apps.get(anchor);
      if (!app) throw new ServiceError('ApplicationNotFound');
      const { body } = await deps.keyRing.jwks(app.id);
      return { raw: body, headers: { 'Cache-Control': cacheControl } };
    },
  });
}
