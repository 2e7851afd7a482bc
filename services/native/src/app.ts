// The native host's endpoint table: direct issue (access key, public key, platform ticket) and /errand on the fast
// dispatcher (health and readiness on Express).
import type { RequestListener } from 'node:http';
import { hostAppOptions } from '@svc/host';
import { type HostTable, landingEndpoints, serveEndpoints } from '@svc/platform';
import type { NativeDeps } from './deps';
import { directIssueEndpoints } from './routes/direct-issue';
import { errandEndpoint } from './routes/errand';
import { createCredentialStore } from './store/credentials';
import { createPlatformLinkStore } from './store/platform-links';
import { createSessionStore } from './store/sessions';
import { createSteamClient } from './store/steam-api';
import { createTicketReplayStore } from './store/ticket-replay';

export function nativeTable(deps: NativeDeps): HostTable {
  const ports = {
    credentials: createCredentialStore(deps.db),
    links: createPlatformLinkStore(deps.db),
    replay: createTicketReplayStore(deps.redis, deps.config.ticketReplayTtlSeconds),
    steam: createSteamClient({
      baseUrl: deps.config.steamApiUrl,
      apiKey: deps.config.steamApiKey,
      identity: deps.config.steamIdentity,
      timeoutMs: deps.config.steamTimeoutMs,
      logger: deps.logger,
    }),
  };
  return {
    endpoints: [
      ...directIssueEndpoints(deps, ports),
      errandEndpoint(deps, createSessionStore(deps.db)),
      ...landingEndpoints({ page: '/', favicon: '/favicon.ico' }, 'native', deps.config.devMailboxUrl),
    ],
  };
}

export function createNativeApp(deps: NativeDeps): RequestListener {
  return serveEndpoints(hostAppOptions('native', deps), nativeTable(deps));
}
