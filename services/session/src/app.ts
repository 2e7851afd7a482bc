// The session host's endpoint table: every endpoint on the fast dispatcher (health and readiness on Express).
import type { RequestListener } from 'node:http';
import { hostAppOptions } from '@svc/host';
import { type HostTable, landingEndpoints, serveEndpoints } from '@svc/platform';
import type { SessionDeps } from './deps';
import { jwksEndpoint } from './routes/jwks';
import { profileEndpoints } from './routes/profile';
import { revokeAllEndpoint } from './routes/revoke-all';
import { tokenEndpoints } from './routes/tokens';

export function sessionTable(deps: SessionDeps): HostTable {
  return {
    endpoints: [
      ...tokenEndpoints(deps),
      jwksEndpoint(deps),
      revokeAllEndpoint(deps),
      ...profileEndpoints(deps),
      ...landingEndpoints({ page: '/', favicon: '/favicon.ico' }, 'session', deps.devMailboxUrl),
    ],
  };
}

export function createSessionApp(deps: SessionDeps): RequestListener {
  const opts = { ...hostAppOptions('session', deps), includeMessages: true };
  return serveEndpoints(opts, sessionTable(deps));
}
