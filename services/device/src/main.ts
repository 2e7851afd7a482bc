// Process entry of the device host (`pnpm start:device`): read the configuration, open the connections, serve.
import { serveHostProcess } from '@svc/platform';
import { createDeviceApp } from './app';
import { deviceConfigFromEnv } from './config';
import { openDeviceDeps } from './deps';

serveHostProcess(
  { name: 'device', config: deviceConfigFromEnv, open: openDeviceDeps, app: createDeviceApp },
  process.env,
);
