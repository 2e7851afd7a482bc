// The session host: refresh, introspect, logout and JWK Sets as fast routes; revoke-all, userinfo, claim-state,
// health and readiness on Express.
import type { RequestListener } from 'node:http';
import { hostAppOptions } from '@svc/host';
import { createHostApp, finishHostApp, withFastRoutes } from '@svc/platform';
import type { SessionDeps } from './deps';
import { jwksRoute } from './routes/jwks';
import { profileRoutes } from './routes/profile';
import { revokeAllRoutes } from './routes/revoke-all';
import { tokenRoutes } from './routes/tokens';

export function createSessionApp(deps: SessionDeps): RequestListener {
  const opts = { ...hostAppOptions('session', deps), includeMessages: true };
  const app = createHostApp(opts);
  app.use(revokeAllRoutes(deps));
  app.use(profileRoutes(deps));
  finishHostApp(app, opts);
  return withFastRoutes(app, opts, [...tokenRoutes(deps), jwksRoute(deps)]);
}
