// Process entry of the native host (`pnpm start:native`): read the configuration, open the connections, serve.
import { serveHostProcess } from '@svc/platform';
import { createNativeApp } from './app';
import { nativeConfigFromEnv } from './config';
import { openNativeDeps } from './deps';

serveHostProcess(
  { name: 'native', config: nativeConfigFromEnv, open: openNativeDeps, app: createNativeApp },
  process.env,
);
