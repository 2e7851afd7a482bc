// Routes taking a token in a JSON body: /refresh, /introspect, /logout (fast routes: the hot paths of the host).
import { type FastRoute, parseWith, storableText } from '@svc/platform';
import { z } from 'zod';
import type { SessionDeps } from '../deps';
import { introspect } from '../domain/introspect';
import { logout } from '../domain/logout';
import { refreshSession } from '../domain/refresh';

const BODY_LIMIT = 16 * 1024;
const token = storableText().min(1).max(8192);
const refreshBody = z.strictObject({ refreshToken: token });
const accessBody = z.strictObject({ accessToken: token });

export function tokenRoutes(deps: SessionDeps): FastRoute[] {
  return [
    {
      method: 'POST',
      path: '/refresh',
      bodyLimit: BODY_LIMIT,
      handle: async (req) => {
        const { refreshToken } = parseWith(refreshBody, req.body);
        return { json: await refreshSession(deps, refreshToken), noStore: true };
      },
    },
    {
      method: 'POST',
      path: '/introspect',
      bodyLimit: BODY_LIMIT,
      handle: async (req) => {
        const { accessToken } = parseWith(accessBody, req.body);
        return { json: await introspect(deps, accessToken), noStore: true };
      },
    },
    {
      method: 'POST',
      path: '/logout',
      bodyLimit: BODY_LIMIT,
      handle: async (req) => {
        const { refreshToken } = parseWith(refreshBody, req.body);
        return { json: await logout(deps, refreshToken), noStore: true };
      },
    },
  ];
}
