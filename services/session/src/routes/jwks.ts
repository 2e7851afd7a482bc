// GET /applications/{anchor}/jwks.json: the public JWK Set, cacheable no longer than the prepublication window.
import { endpoint, JwkSet } from '@svc/platform';
import type { SessionDeps } from '../deps';
import { applicationJwks } from '../domain/jwks';

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
    handle: async (req) => ({
      raw: await applicationJwks(deps, req.params.anchor!),
      headers: { 'Cache-Control': cacheControl },
    }),
  });
}
