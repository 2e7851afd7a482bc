// The session host's Express app: refresh, introspect, logout, revoke-all, userinfo, claim-state and JWK Sets.
import { createHostApp, finishHostApp } from '@svc/platform';
import type { Express } from 'express';
import type { SessionDeps } from './deps';
import { jwksRoutes } from './routes/jwks';
import { profileRoutes } from './routes/profile';
import { revokeAllRoutes } from './routes/revoke-all';
import { tokenRoutes } from './routes/tokens';

export function createSessionApp(deps: SessionDeps): Express {
  const opts = {
    name: 'session',
    logger: deps.logger,
    metrics: deps.metrics,
    includeMessages: true,
    readiness: async () => {
      await deps.db.$queryRaw`SELECT 1`;
      await deps.redis.ping();
    },
  };
  const app = createHostApp(opts);
  app.use(tokenRoutes(deps));
  app.use(revokeAllRoutes(deps));
  app.use(profileRoutes(deps));
  app.use(jwksRoutes(deps));
  finishHostApp(app, opts);
  return app;
}
