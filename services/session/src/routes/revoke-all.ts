// POST /revoke-all: client-auth JWT (aud service-session) bound to the exact body, then revoke by subject.
import { verifyClientAuthWith } from '@svc/client-auth';
import { endpoint, Revoked, storableText } from '@svc/platform';
import { AUDIENCE } from '@svc/token-core';
import { z } from 'zod';
import type { SessionDeps } from '../deps';
import { revokeAll } from '../domain/revoke-all';

const body = z.strictObject({ subject: storableText().min(1).max(256) });

export const revokeAllEndpoint = (deps: SessionDeps) =>
  endpoint({
    method: 'POST',
    path: '/revoke-all',
    body: { kind: 'json', schema: body, limit: 16 * 1024 },
    noStore: true,
    doc: {
      summary: 'Revokes every session of a subject under the calling application.',
      answers: [{ schema: Revoked }],
      reasons: ['ClientAuthDenied'],
      auth: 'clientAuth',
    },
    authenticate: (req) =>
      verifyClientAuthWith(deps.ports.clientAuth, deps.clock, {
        authorization: req.headers.authorization,
        rawBody: req.rawBody,
        audience: AUDIENCE.session,
      }),
    handle: async (req) => ({ json: await revokeAll(deps, req.auth.applicationId, req.body.subject) }),
  });
