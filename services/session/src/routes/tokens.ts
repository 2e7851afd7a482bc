// Endpoints taking a token in a JSON body: /refresh, /introspect, /logout (the host's hot paths).
import { endpoint, storableText } from '@svc/platform';
import { z } from 'zod';
import type { SessionDeps } from '../deps';
import { introspect } from '../domain/introspect';
import { logout } from '../domain/logout';
import { refreshSession } from '../domain/refresh';

const limit = 16 * 1024;
const token = storableText().min(1).max(8192);
const refreshBody = z.strictObject({ refreshToken: token });
const accessBody = z.strictObject({ accessToken: token });

export const tokenEndpoints = (deps: SessionDeps) => [
  endpoint({
    method: 'POST',
    path: '/refresh',
    body: { kind: 'json', schema: refreshBody, limit },
    noStore: true,
    handle: async (req) => ({ json: await refreshSession(deps, req.body.refreshToken) }),
  }),
  endpoint({
    method: 'POST',
    path: '/introspect',
    body: { kind: 'json', schema: accessBody, limit },
    noStore: true,
    handle: async (req) => ({ json: await introspect(deps, req.body.accessToken) }),
  }),
  endpoint({
    method: 'POST',
    path: '/logout',
    body: { kind: 'json', schema: refreshBody, limit },
    noStore: true,
    handle: async (req) => ({ json: await logout(deps, req.body.refreshToken) }),
  }),
];
