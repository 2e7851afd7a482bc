// Process entry of the connect host (`pnpm start:connect`): read the configuration, open the connections, serve.
import { serveHostProcess } from '@svc/platform';
import { createConnectApp } from './app';
import { connectConfigFromEnv } from './config';
import { openConnectDeps } from './deps';

serveHostProcess(
  { name: 'connect', config: connectConfigFromEnv, open: openConnectDeps, app: createConnectApp },
  process.env,
);
