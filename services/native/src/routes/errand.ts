// POST /errand: an access token in the body; answers `{claims, errand|null}`. A token that is missing or
// malformed gets the same empty 401 as an expired or inactive one (the body's schema refusal).
import { ClaimView, Errand, endpoint } from '@svc/platform';
import { z } from 'zod';
import type { NativeDeps } from '../deps';
import { errandForAccessToken } from '../domain/errand';
import { errandBody } from './schemas';

export const errandEndpoint = (deps: NativeDeps) =>
  endpoint({
    method: 'POST',
    path: '/errand',
    body: {
      kind: 'json',
      schema: errandBody,
      limit: deps.config.bodyLimitBytes,
      refusal: 'AccessTokenInvalid',
    },
    noStore: true,
    doc: {
      summary: 'The live claim view and the errand the claim gate owes, if any.',
      answers: [{ schema: z.strictObject({ claims: ClaimView, errand: Errand.nullable() }) }],
      reasons: ['ApplicationNotActive', 'AccountDisabled'],
    },
    handle: async (req) => ({ json: await errandForAccessToken(deps, req.body.accessToken) }),
  });
