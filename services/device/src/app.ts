// The device host's endpoint table: /device-authorize and /device-token on the fast dispatcher; health and
// readiness on Express, with the approval page (/device, on libs/signin's step routers) and its assets.
import type { RequestListener } from 'node:http';
import { hostAppOptions } from '@svc/host';
import { serveEndpoints } from '@svc/platform';
import { assetRoutes } from '@svc/signin';
import type { DeviceDeps } from './deps';
import { deviceEndpoints } from './routes/device';
import { devicePages } from './routes/pages';

export function createDeviceApp(deps: DeviceDeps): RequestListener {
  return serveEndpoints(hostAppOptions('device', deps), {
    endpoints: deviceEndpoints(deps),
    // The page's routes are the shared sign-in step routers; they join the table when libs/signin declares them.
    legacy: (app) => {
      app.use(assetRoutes());
      app.use(devicePages(deps));
    },
  });
}
