// The native host's Express app: direct issue (access key, public key, platform ticket) and /errand.
import { createHostApp, finishHostApp, type HostAppOptions } from '@svc/platform';
import type { Express } from 'express';
import type { NativeDeps } from './deps';
import { directIssueRouter } from './routes/direct-issue';
import { errandRouter } from './routes/errand';
import { createCredentialStore } from './store/credentials';
import { createPlatformLinkStore } from './store/platform-links';
import { createSessionStore } from './store/sessions';
import { createSteamClient } from './store/steam-api';
import { createTicketReplayStore } from './store/ticket-replay';

export function createNativeApp(deps: NativeDeps): Express {
  const opts: HostAppOptions = {
    name: 'native',
    logger: deps.logger,
    metrics: deps.metrics,
    async readiness() {
      await deps.db.$queryRaw`SELECT 1`;
      await deps.redis.ping();
    },
  };
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
  app.use(directIssueRouter(deps, ports));
  app.use(errandRouter(deps, createSessionStore(deps.db)));
  finishHostApp(app, opts);
  return app;
}
