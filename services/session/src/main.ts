// Process entry of the session host (`pnpm start:session`): read the configuration, open the connections, serve.
import { serveHostProcess } from '@svc/platform';
import { createSessionApp } from './app';
import { sessionConfigFromEnv } from './config';
import { openSessionDeps } from './deps';

serveHostProcess(
  { name: 'session', config: sessionConfigFromEnv, open: openSessionDeps, app: createSessionApp },
  process.env,
);
