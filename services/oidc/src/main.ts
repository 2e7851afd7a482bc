// Process entry of the OIDC host (`pnpm start:oidc`): open connections from the environment and serve.
import { serveHostProcess } from '@svc/platform';
import { createOidcApp } from './app';
import { openOidcDeps } from './deps';

serveHostProcess('oidc', openOidcDeps, createOidcApp);
