// The device host's endpoint table: /device-authorize and /device-token on the fast dispatcher; health and
// readiness on Express (the approval page joins the table as page endpoints).
import type { RequestListener } from 'node:http';
import { hostAppOptions } from '@svc/host';
import { serveEndpoints } from '@svc/platform';
import type { DeviceDeps } from './deps';
import { deviceEndpoints } from './routes/device';

export function createDeviceApp(deps: DeviceDeps): RequestListener {
  return serveEndpoints(hostAppOptions('device', deps), { endpoints: deviceEndpoints(deps) });
}
