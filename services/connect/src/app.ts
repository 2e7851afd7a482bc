// The connect host's endpoint table: the JSON API on the fast dispatcher; the static assets and browser pages as
// page endpoints on Express (routes/pages.ts lists them), used by main and tests.
import type { RequestListener } from 'node:http';
import { hostAppOptions } from '@svc/host';
import { type HostTable, landingEndpoints, serveEndpoints } from '@svc/platform';
import type { ConnectDeps } from './deps';
import { apiEndpoints } from './routes/api';
import { pageEndpoints } from './routes/pages';

export function connectTable(deps: ConnectDeps): HostTable {
  return {
    endpoints: [
      ...apiEndpoints(deps),
      ...pageEndpoints(deps),
      ...landingEndpoints({ page: '/', favicon: '/favicon.ico' }, 'connect', deps.config.devMailboxUrl),
    ],
    pageErrors: deps.signin.pageErrors(),
  };
}

export function createConnectApp(deps: ConnectDeps): RequestListener {
  return serveEndpoints(hostAppOptions('connect', deps), connectTable(deps));
}
