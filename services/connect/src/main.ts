// Process entry of the connect host (`pnpm start:connect`): open connections from the environment and serve.
import { serveHostProcess } from '@svc/platform';
import { createConnectApp } from './app';
import { openConnectDeps } from './deps';

serveHostProcess('connect', openConnectDeps, createConnectApp);
