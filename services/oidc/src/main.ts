// Process entry of the OIDC host (`pnpm start:oidc`): read the configuration, open the connections, serve.
import { serveHostProcess } from '@svc/platform';
import { createOidcApp } from './app';
import { oidcConfigFromEnv } from './config';
import { openOidcDeps } from './deps';

serveHostProcess(
  { name: 'oidc', config: oidcConfigFromEnv, open: openOidcDeps, app: createOidcApp },
  process.env,
);
