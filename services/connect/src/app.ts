// The connect host's endpoint table: the JSON API on the fast dispatcher; the static assets and browser pages on
// Express (the pages join the table as page endpoints), used by main and tests.
import type { RequestListener } from 'node:http';
import { hostAppOptions } from '@svc/host';
import { serveEndpoints } from '@svc/platform';
import { assetRoutes } from '@svc/signin';
import type { ConnectDeps } from './deps';
import { apiEndpoints } from './routes/api';
import { connectSignin, pageRoutes, termsPage } from './routes/pages';
import { createInquiryStore } from './store/inquiries';

export function createConnectApp(deps: ConnectDeps): RequestListener {
  const inquiries = createInquiryStore(deps.db);
  const signin = connectSignin(deps);
  return serveEndpoints(hostAppOptions('connect', deps), {
    endpoints: [...apiEndpoints(deps, inquiries), termsPage(deps, signin)],
    pageErrors: signin.pageErrors(),
    // The sign-in pages, until they are declared as page endpoints.
    legacy: (app) => {
      app.use(assetRoutes());
      app.use(pageRoutes(deps, inquiries, signin));
    },
  });
}
