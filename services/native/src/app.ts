// The native host's endpoint table: direct issue (access key, public key, platform ticket) and /errand on the fast
// dispatcher (health and readiness on Express).
import type { RequestListener } from 'node:http';
import { hostAppOptions } from '@svc/host';
import { type HostTable, landingEndpoints, serveEndpoints } from '@svc/platform';
import type { NativeDeps } from './deps';
import { directIssueEndpoints } from './routes/direct-issue';
import { errandEndpoint } from './routes/errand';

export function nativeTable(deps: NativeDeps): HostTable {
  return {
    endpoints: [
      ...directIssueEndpoints(deps),
      errandEndpoint(deps),
      ...landingEndpoints({ page: '/', favicon: '/favicon.ico' }, 'native', deps.config.devMailboxUrl),
    ],
  };
}

export function createNativeApp(deps: NativeDeps): RequestListener {
  return serveEndpoints(hostAppOptions('native', deps), nativeTable(deps));
}
