// The OIDC host's browser side: /authorize, the interaction pages on the shared sign-in steps of @svc/signin
// (flow cookie oidc_flow, namespace oidc, flows under OIDC_REDIS_PREFIX, receipts OIDC_BROWSER), their assets and
// the pages' error mapper.
import type { Endpoint } from '@svc/platform';
import { createSignin, type Signin } from '@svc/signin';
import type { ErrorRequestHandler } from 'express';
import type { OidcDeps } from '../deps';
import { OIDC_MESSAGES, type OidcKey } from '../pages/i18n-oidc';
import { OIDC_PAGE_STATUSES } from '../pages/page-statuses';
import { signinConfig } from '../pages-config';
import { authorizeEndpoints } from './authorize';
import { interactionEndpoints } from './interaction';

export function oidcSignin(deps: OidcDeps): Signin<OidcKey> {
  const { mailer, settings } = deps.pages;
  return createSignin({
    deps: {
      db: deps.db,
      redis: deps.redis,
      issuance: deps,
      mailer,
      logger: deps.logger,
      clock: deps.clock,
      metrics: deps.metrics,
    },
    config: signinConfig(settings, deps.oidc.oidcUrl),
    namespace: 'oidc',
    redisPrefix: deps.oidc.redisPrefix,
    receiptChannel: 'OIDC_BROWSER',
    messages: OIDC_MESSAGES,
    pageStatuses: OIDC_PAGE_STATUSES,
    // A page view without a flow writes one (~260 bytes for FLOW_TTL_SECONDS); any number of views of one parked
    // request would otherwise write without bound. A browser starts about one per /authorize at most (its flow
    // cookie lasts the flow's lifetime), so the /authorize limit's rate bounds it, on a counter of its own.
    newFlowRate: settings.authorizeRate,
  });
}

/** The page endpoints (assets, /authorize, /interaction/{uid} and its steps) and their error mapper. */
export function oidcPages(deps: OidcDeps): { endpoints: Endpoint[]; pageErrors: ErrorRequestHandler } {
  const signin = oidcSignin(deps);
  return {
    endpoints: [
      signin.assetEndpoint(),
      ...authorizeEndpoints(deps, signin),
      ...interactionEndpoints(deps, signin),
    ],
    pageErrors: signin.pageErrors(),
  };
}
