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
      ...landingEndpoints(
        { page: '/', favicon: '/favicon.ico' },
        {
          host: 'device',
          serves:
            'The device authorization flow for TVs, consoles and CLIs: /device-authorize, /device-token, and the approval page where a person types the code.',
          docs: 'docs/device.md',
          links: [{ href: '/device', label: 'Approve a device (type the code it shows)' }],
          mailboxUrl: deps.config.devMailboxUrl,
        },
      ),
    ],
    pageErrors: pages.pageErrors,
  };
}

export function createDeviceApp(deps: DeviceDeps): RequestListener {
  return serveEndpoints(hostAppOptions('device', deps), deviceTable(deps));
}
