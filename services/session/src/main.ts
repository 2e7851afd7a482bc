// Process entry of the session host (`pnpm start:session`): open connections from the environment and serve.
import { serveHostProcess } from '@svc/platform';
import { createSessionApp } from './app';
import { openSessionDeps } from './deps';

serveHostProcess('session', openSessionDeps, createSessionApp);
