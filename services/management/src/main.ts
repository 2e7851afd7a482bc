// Process entry of the management host (`pnpm start:management`): read the configuration, open the connections, serve.
import { serveHostProcess } from '@svc/platform';
import { createManagementApp } from './app';
import { managementConfigFromEnv } from './config';
import { openManagementDeps } from './deps';

serveHostProcess(
  { name: 'management', config: managementConfigFromEnv, open: openManagementDeps, app: createManagementApp },
  process.env,
);
