// The OIDC host's browser side: /authorize, the interaction pages on the shared sign-in steps of @svc/signin (bound
// once in deps.ts, pages-config.ts oidcSignin), their assets and the pages' error mapper.
import type { Endpoint } from '@svc/platform';
import type { ErrorRequestHandler } from 'express';
import type { OidcDeps } from '../deps';
import { authorizeEndpoints } from './authorize';
import { interactionEndpoints } from './interaction';

/** The page endpoints (assets, /authorize, /interaction/{uid} and its steps) and their error mapper. */
export function oidcPages(deps: OidcDeps): { endpoints: Endpoint[]; pageErrors: ErrorRequestHandler } {
  const { signin } = deps;
  return {
    endpoints: [
      signin.assetEndpoint(),
      ...authorizeEndpoints(deps, signin),
      ...interactionEndpoints(deps, signin),
    ],
    pageErrors: signin.pageErrors(),
  };
}
