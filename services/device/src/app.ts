// The device host: /device-authorize and /device-token as fast routes; health and readiness on Express (the
// approval page joins there).
import type { RequestListener } from 'node:http';
import { hostAppOptions } from '@svc/host';
import { createHostApp, finishHostApp, withFastRoutes } from '@svc/platform';
import type { DeviceDeps } from './deps';
import { deviceRoutes } from './routes/device';

export function createDeviceApp(deps: DeviceDeps): RequestListener {
  const opts = hostAppOptions('device', deps);
  const app = createHostApp(opts);
  finishHostApp(app, opts);
  return withFastRoutes(app, opts, deviceRoutes(deps));
}
