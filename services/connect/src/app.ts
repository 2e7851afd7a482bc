// createConnectApp: the connect host's Express app (JSON API, browser pages, static assets), used by main and tests.

import { hostAppOptions } from '@svc/host';
import { createHostApp, finishHostApp } from '@svc/platform';
import { assetRoutes } from '@svc/signin';
import type { Express } from 'express';
import type { ConnectDeps } from './deps';
import { apiRoutes } from './routes/api';
import { pageRoutes } from './routes/pages';
import { createInquiryStore } from './store/inquiries';

export function createConnectApp(deps: ConnectDeps): Express {
  const opts = hostAppOptions('connect', deps);
  const app = createHostApp(opts);
  const inquiries = createInquiryStore(deps.db);
  app.use(apiRoutes(deps, inquiries));
  app.use(assetRoutes());
  app.use(pageRoutes(deps, inquiries));
  finishHostApp(app, opts);
  return app;
}
