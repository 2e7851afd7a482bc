// The connect host's endpoint table: the JSON API on the fast dispatcher; the static assets and browser pages as
// page endpoints on Express (routes/pages.ts lists them), used by main and tests.
import type { RequestListener } from 'node:http';
import { hostAppOptions } from '@svc/host';
import { type HostTable, landingEndpoints, serveEndpoints } from '@svc/platform';
import type { ConnectDeps } from './deps';
import { apiEndpoints } from './routes/api';
import { connectSignin, pageEndpoints } from './routes/pages';
import { createInquiryStore } from './store/inquiries';

export function connectTable(deps: ConnectDeps): HostTable {
  const inquiries = createInquiryStore(deps.db);
  const signin = connectSignin(deps);
  return {
    endpoints: [
      ...apiEndpoints(deps, inquiries),
      ...pageEndpoints(deps, inquiries, signin),
      ...landingEndpoints({ page: '/', favicon: '/favicon.ico' }, 'connect', deps.config.devMailboxUrl),
    ],
    pageErrors: signin.pageErrors(),
  };
}

export function createConnectApp(deps: ConnectDeps): RequestListener {
  return serveEndpoints(hostAppOptions('connect', deps), connectTable(deps));
}
