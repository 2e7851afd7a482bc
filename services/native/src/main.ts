// Process entry of the native host (`pnpm start:native`): open connections from the environment and serve.
import { serveHostProcess } from '@svc/platform';
import { createNativeApp } from './app';
import { openNativeDeps } from './deps';

serveHostProcess('native', openNativeDeps, createNativeApp);
