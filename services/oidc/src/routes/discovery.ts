// GET /.well-known/openid-configuration and GET /.well-known/jwks.json: public, cacheable, no authentication.
import { OIDC_SCOPE } from '@svc/keyring';
import { endpoint, JwkSet } from '@svc/platform';
import { z } from 'zod';
import type { OidcDeps } from '../deps';
import { PUBLIC_CORS } from '../domain/cors';
import { providerMetadata } from '../domain/discovery';

/** OpenID Connect Discovery 1.0, section 3 (the required members; the others as the metadata lists them). */
const ProviderMetadata = z.looseObject({
  issuer: z.url(),
  authorization_endpoint: z.url(),
  token_endpoint: z.url(),
  userinfo_endpoint: z.url(),
  jwks_uri: z.url(),
  response_types_supported: z.array(z.string()),
  subject_types_supported: z.array(z.string()),
  id_token_signing_alg_values_supported: z.array(z.string()),
});

export function discoveryEndpoints(deps: OidcDeps) {
  const metadata = Buffer.from(JSON.stringify(providerMetadata(deps.oidc.oidcUrl, deps.oidc)));
  // The JWKS is re-read from the key ring on every request: the ring caches it and drops the cache when a key
  // changes (Redis pub/sub), so a rotation or revocation is served at once without a restart.
  const jwksCache = `public, max-age=${deps.oidc.jwksMaxAgeSeconds}`;
  return [
    endpoint({
      method: 'GET',
      path: '/.well-known/openid-configuration',
      body: { kind: 'none' },
      noStore: false,
      cors: PUBLIC_CORS,
      doc: {
        summary: 'OpenID Provider metadata.',
        answers: [{ schema: ProviderMetadata, headers: { 'Cache-Control': 'public, max-age=300' } }],
      },
      handle: () => ({ raw: metadata, headers: { 'Cache-Control': 'public, max-age=300' } }),
    }),
    endpoint({
      method: 'GET',
      path: '/.well-known/jwks.json',
      body: { kind: 'none' },
      noStore: false,
      cors: PUBLIC_CORS,
      doc: {
        summary: 'The platform OIDC signing keys.',
        answers: [{ schema: JwkSet, headers: { 'Cache-Control': 'public, max-age=<seconds>' } }],
      },
      handle: async () => {
        const { body } = await deps.keyRing.jwks(OIDC_SCOPE);
        return { raw: body, headers: { 'Cache-Control': jwksCache } };
      },
    }),
  ];
}
