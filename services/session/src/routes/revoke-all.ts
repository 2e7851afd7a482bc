// POST /revoke-all: client-auth JWT (aud service-session) bound to the exact body, then revoke by subject.
import { verifyClientAuth } from '@svc/client-auth';
import { jsonBody, noStore, parseWith, storableText } from '@svc/platform';
import { AUDIENCE } from '@svc/token-core';
import { Router } from 'express';
import { z } from 'zod';
import type { SessionDeps } from '../deps';
import { revokeAll } from '../domain/revoke-all';

const body = z.strictObject({ subject: storableText().min(1).max(256) });

export function revokeAllRoutes(deps: SessionDeps): Router {
  const router = Router();
  router.post('/revoke-all', jsonBody(16 * 1024), async (req, res) => {
    const caller = await verifyClientAuth(deps, {
      authorization: req.headers.authorization,
      rawBody: req.rawBody ?? Buffer.alloc(0),
      audience: AUDIENCE.session,
    });
    const { subject } = parseWith(body, req.body);
    const result = await revokeAll(deps, caller.applicationId, subject);
    noStore(res);
    res.json(result);
  });
  return router;
}
