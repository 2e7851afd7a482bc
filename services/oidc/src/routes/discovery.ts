// GET /.well-known/openid-configuration and GET /.well-known/jwks.json: public, cacheable, no authentication.
import { OIDC_SCOPE } from '@svc/keyring';
import { endpoint } from '@svc/platform';
import type { OidcDeps } from '../deps';
import { providerMetadata } from '../domain/discovery';

export function discoveryEndpoints(deps: OidcDeps) {
  const metadata = Buffer.from(JSON.stringify(providerMetadata(deps.oidc.oidcUrl)));
  // The JWKS is re-read from the key ring on every request: the ring caches it and drops the cache when a key
  // changes (Redis pub/sub), so a rotation or revocation is served at once without a restart.
  const jwksCache = `public, max-age=${deps.oidc.jwksMaxAgeSeconds}`;
  return [
    endpoint({
      method: 'GET',
      path: '/.well-known/openid-configuration',
      body: { kind: 'none' },
      noStore: false,
      handle: () => ({ raw: metadata, headers: { 'Cache-Control': 'public, max-age=300' } }),
    }),
    endpoint({
      method: 'GET',
      path: '/.well-known/jwks.json',
      body: { kind: 'none' },
      noStore: false,
      handle: async () => {
        const { body } = await deps.keyRing.jwks(OIDC_SCOPE);
        return { raw: body, headers: { 'Cache-Control': jwksCache } };
      },
    }),
  ];
}
