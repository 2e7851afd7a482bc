// The JSON endpoints of the connect host: /establish, /redeem, /refresh, /info and the inquiry status poll.
import { clientAuthFailure, verifyClientAuth } from '@svc/client-auth';
import { jsonBody, noStore, parseWith, ServiceError } from '@svc/platform';
import { canonicalLocale, localizedName } from '@svc/signin';
import { AUDIENCE } from '@svc/token-core';
import { type Request, type Response, Router } from 'express';
import type { ConnectDeps } from '../deps';
import { establishInquiry } from '../domain/establish';
import { pollInquiry } from '../domain/inquiry-status';
import { redeemInquiry } from '../domain/redeem';
import { refreshConnectSession } from '../domain/refresh';
import type { InquiryStore } from '../store/inquiries';
import { establishSchema, infoSchema, inquiryStatusSchema, redeemSchema, refreshSchema } from './schemas';

/** /establish reads more than the default 64 KiB: the three arrays alone may reach 65,536 bytes. */
const ESTABLISH_BODY_LIMIT = 256 * 1024;

export function apiRoutes(deps: ConnectDeps, inquiries: InquiryStore): Router {
  const router = Router();
  const rotation = { ...deps.issuance, redis: deps.redis };

  router.post('/establish', jsonBody(ESTABLISH_BODY_LIMIT), async (req: Request, res: Response) => {
    const auth = await verifyClientAuth(deps, {
      authorization: req.headers.authorization,
      rawBody: req.rawBody ?? Buffer.alloc(0),
      audience: AUDIENCE.connect,
    });
    const body = parseWith(establishSchema, req.body);
    // The signing application must be the one the inquiry is for.
    if (body.applicationAnchor !== auth.applicationAnchor) throw clientAuthFailure();
    const app = await deps.apps.get(auth.applicationAnchor);
    if (!app) throw new ServiceError('ApplicationNotActive', 403);
    const result = await establishInquiry(
      { inquiries, now: deps.now, inquiryTtlSeconds: deps.config.inquiryTtlSeconds },
      app,
      body,
    );
    noStore(res);
    res.json(result);
  });

  router.post('/redeem', jsonBody(), async (req, res) => {
    const keys = parseWith(redeemSchema, req.body);
    const result = await redeemInquiry({ inquiries, issuance: deps.issuance, now: deps.now }, keys);
    noStore(res);
    res.json(result);
  });

  router.post('/refresh', jsonBody(), async (req, res) => {
    const { refreshToken } = parseWith(refreshSchema, req.body);
    const result = await refreshConnectSession({ rotation, apps: deps.apps }, refreshToken);
    noStore(res);
    res.json(result);
  });

  router.post('/info', jsonBody(), async (req, res) => {
    const body = parseWith(infoSchema, req.body);
    if (!canonicalLocale(body.locale)) throw new ServiceError('InvalidBody', 400);
    const app = await deps.apps.get(body.applicationAnchor);
    if (!app) throw new ServiceError('ApplicationNotFound', 404);
    res.json({
      applicationAnchor: app.anchor,
      applicationName: localizedName(app.names, app.defaultLocale, body.locale),
    });
  });

  router.post('/inquiries/:exposureKey/status', jsonBody(), async (req, res) => {
    const { hiddenKey } = parseWith(inquiryStatusSchema, req.body);
    const exposureKey = String(req.params.exposureKey);
    const result = await pollInquiry(
      { inquiries, kek: deps.issuance.kek, now: deps.now },
      exposureKey,
      hiddenKey,
    );
    noStore(res);
    res.json(result);
  });

  return router;
}
