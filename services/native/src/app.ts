// The native host: direct issue (access key, public key, platform ticket) as fast routes; /errand, health and
// readiness on Express.
import type { RequestListener } from 'node:http';
import { hostAppOptions } from '@svc/host';
import { createHostApp, finishHostApp, withFastRoutes } from '@svc/platform';
import type { NativeDeps } from './deps';
import { directIssueRoutes } from './routes/direct-issue';
import { errandRouter } from './routes/errand';
import { createCredentialStore } from './store/credentials';
import { createPlatformLinkStore } from './store/platform-links';
import { createSessionStore } from './store/sessions';
import { createSteamClient } from './store/steam-api';
import { createTicketReplayStore } from './store/ticket-replay';

export function createNativeApp(deps: NativeDeps): RequestListener {
  const opts = hostAppOptions('native', deps);
  const app = createHostApp(opts);
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
  app.use(errandRouter(deps, createSessionStore(deps.db)));
  finishHostApp(app, opts);
  return withFastRoutes(app, opts, directIssueRoutes(deps, ports));
}
