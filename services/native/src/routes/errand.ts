// POST /errand: an access token in the body; answers `{claims, errand|null}`. A token that is missing or
// malformed gets the same empty 401 as an expired or inactive one.
import { jsonBody, noStore, ServiceError } from '@svc/platform';
import { Router } from 'express';
import type { NativeDeps } from '../deps';
import { errandForAccessToken } from '../domain/errand';
import type { SessionStore } from '../store/sessions';
import { errandBody } from './schemas';

export function errandRouter(deps: NativeDeps, sessions: SessionStore): Router {
  const router = Router();
  router.post('/errand', jsonBody(deps.config.bodyLimitBytes), async (req, res) => {
    const parsed = errandBody.safeParse(req.body);
    if (!parsed.success) throw new ServiceError('AccessTokenInvalid', 401, { emptyBody: true });
    const result = await errandForAccessToken(deps, sessions, parsed.data.accessToken);
    noStore(res);
    res.status(200).json(result);
  });
  return router;
}
