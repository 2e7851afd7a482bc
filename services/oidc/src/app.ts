// The OIDC host's endpoint table: discovery, JWKS, /token, /par, /revoke, /userinfo and /claim-state on the fast dispatcher;
// /end-session, /authorize, /interaction/{uid} and its sign-in steps as page endpoints (routes/pages.ts).
import type { RequestListener } from 'node:http';
import { hostAppOptions } from '@svc/host';
import { type HostTable, landingEndpoints, serveEndpoints } from '@svc/platform';
import type { OidcDeps } from './deps';
import { deviceAuthorizationEndpoints } from './routes/device-authorization';
import { discoveryEndpoints } from './routes/discovery';
import { endSessionEndpoints } from './routes/end-session';
import { oidcPages } from './routes/pages';
import { parEndpoints } from './routes/par';
import { registerEndpoints } from './routes/register';
import { revocationEndpoints } from './routes/revocation';
import { tokenEndpoints } from './routes/token';
import { userinfoEndpoints } from './routes/userinfo';

export function oidcTable(deps: OidcDeps): HostTable {
  const pages = oidcPages(deps);
  return {
    endpoints: [
      ...discoveryEndpoints(deps),
      ...tokenEndpoints(deps),
      ...parEndpoints(deps),
      // Only with OIDC_REGISTRATION=initial-access-token.
      ...registerEndpoints(deps),
      ...revocationEndpoints(deps),
      ...deviceAuthorizationEndpoints(deps),
      ...userinfoEndpoints(deps),
      ...endSessionEndpoints(deps),
      ...pages.endpoints,
      ...landingEndpoints({ page: '/', favicon: '/favicon.ico' }, 'oidc', deps.devMailboxUrl),
    ],
    pageErrors: pages.pageErrors,
  };
}

export function createOidcApp(deps: OidcDeps): RequestListener {
  const base = hostAppOptions('oidc', deps);
  const opts = { ...base, readiness: oidcReadiness(deps, base.readiness) };
  return serveEndpoints(opts, oidcTable(deps));
}

/**
 * Ready as every issuing host is, and once the platform OIDC key set has a signer: main makes the first key before
 * listening (domain/platform-key.ts); this makes it when that start-up attempt failed (PostgreSQL not answering yet).
 */
function oidcReadiness(deps: OidcDeps, base: (() => Promise<void>) | undefined): () => Promise<void> {
  let ensured: Promise<unknown> | undefined;
  return async () => {
    await base?.();
    ensured ??= deps.ensurePlatformKey().catch((err: unknown) => {
      ensured = undefined;
      throw err;
    });
    await ensured;
  };
}
