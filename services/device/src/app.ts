// The device host's endpoint table: /device-authorize and /device-token on the fast dispatcher; the approval page
// (/device, its posts, the shared sign-in steps under /device and their assets) as page endpoints on Express.
import type { RequestListener } from 'node:http';
import { hostAppOptions } from '@svc/host';
import { type HostTable, landingEndpoints, serveEndpoints } from '@svc/platform';
import type { DeviceDeps } from './deps';
import { deviceEndpoints } from './routes/device';
import { devicePages } from './routes/pages';

export function deviceTable(deps: DeviceDeps): HostTable {
  const pages = devicePages(deps);
  return {
    endpoints: [
      ...deviceEndpoints(deps),
      ...pages.endpoints,
      ...landingEndpoints({ page: '/', favicon: '/favicon.ico' }, 'device', deps.config.devMailboxUrl),
    ],
    pageErrors: pages.pageErrors,
  };
}

export function createDeviceApp(deps: DeviceDeps): RequestListener {
  return serveEndpoints(hostAppOptions('device', deps), deviceTable(deps));
}
