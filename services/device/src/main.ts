// Process entry of the device host (`pnpm start:device`): open connections from the environment and serve.
import { serveHostProcess } from '@svc/platform';
import { createDeviceApp } from './app';
import { openDeviceDeps } from './deps';

serveHostProcess('device', openDeviceDeps, createDeviceApp);
