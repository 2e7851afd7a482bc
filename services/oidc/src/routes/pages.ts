// The OIDC host's browser side: /authorize, the interaction pages on the shared sign-in steps of @svc/signin
// (flow cookie oidc_flow, namespace oidc, receipts OIDC_BROWSER), their assets and the page error handler.
import { createSignin, type Signin } from '@svc/signin';
import { Router } from 'express';
import type { OidcDeps } from '../deps';
import { OIDC_MESSAGES, type OidcKey } from '../pages/i18n-oidc';
import { signinConfig } from '../pages-config';
import { authorizeRoutes } from './authorize';
import { interactionRoutes } from './interaction';

export function oidcSignin(deps: OidcDeps): Signin<OidcKey> {
  const { mailer, settings } = deps.pages;
  return createSignin({
    deps: {
      db: deps.db,
      redis: deps.redis,
      issuance: deps,
      mailer,
      logger: deps.logger,
      now: () => new Date(deps.now()),
    },
    config: signinConfig(settings, deps.oidc.oidcUrl),
    namespace: 'oidc',
    receiptChannel: 'OIDC_BROWSER',
    messages: OIDC_MESSAGES,
  });
}

export function pageRoutes(deps: OidcDeps): Router {
  const router = Router();
  const signin = oidcSignin(deps);
  router.use(signin.assetRoutes());
  router.use(authorizeRoutes(deps, signin));
  router.use(interactionRoutes(deps, signin));
  router.use(signin.pageErrors());
  return router;
}
