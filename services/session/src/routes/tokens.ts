// Endpoints taking a token in a JSON body: /refresh, /introspect, /logout (the host's hot paths).
import {
  endpoint,
  Introspection,
  ISSUANCE_REFUSALS,
  type Reason,
  Revoked,
  RotatedTokens,
  storableText,
} from '@svc/platform';
import { z } from 'zod';
import type { SessionDeps } from '../deps';
import { introspect } from '../domain/introspect';
import { logout } from '../domain/logout';
import { refreshSession } from '../domain/refresh';

const limit = 16 * 1024;
const token = storableText().min(1).max(8192);
const refreshBody = z.strictObject({ refreshToken: token });
const accessBody = z.strictObject({ accessToken: token });
/** A presented refresh token's rejections (spec, Errors: refresh (session)). */
const TOKEN_REJECTIONS: readonly Reason[] = [
  'RefreshTokenInvalid',
  'RefreshTokenInvalidType',
  'RefreshTokenInvalidSignature',
  'RefreshTokenSuspended',
  'RefreshTokenExpired',
  'RefreshTokenRevoked',
  'RefreshTokenFamilyCompromised',
];

export const tokenEndpoints = (deps: SessionDeps) => [
  endpoint({
    method: 'POST',
    path: '/refresh',
    body: { kind: 'json', schema: refreshBody, limit },
    noStore: true,
    doc: {
      summary: 'Rotates an application refresh token.',
      answers: [{ schema: RotatedTokens }],
      reasons: [...TOKEN_REJECTIONS, 'RefreshTokenRotationRaceLost', ...ISSUANCE_REFUSALS],
    },
    handle: async (req) => ({ json: await refreshSession(deps, req.body.refreshToken) }),
  }),
  endpoint({
    method: 'POST',
    path: '/introspect',
    body: { kind: 'json', schema: accessBody, limit },
    noStore: true,
    doc: {
      summary: "Describes an access token's session.",
      answers: [{ schema: Introspection }],
      reasons: ['AccessTokenInvalid'],
    },
    handle: async (req) => ({ json: await introspect(deps, req.body.accessToken) }),
  }),
  endpoint({
    method: 'POST',
    path: '/logout',
    body: { kind: 'json', schema: refreshBody, limit },
    noStore: true,
    doc: {
      summary: 'Revokes the session of a refresh token.',
      answers: [{ schema: Revoked }],
      reasons: TOKEN_REJECTIONS,
    },
    handle: async (req) => ({ json: await logout(deps, req.body.refreshToken) }),
  }),
];
