// OIDC Back-Channel Logout 1.0, section 2.6, on the relying party's side: a logout token is verified as an ID token
// is (RS256 under the issuer's discovered key set, iss, aud = client_id, iat, exp), and then as what makes it a
// logout token and never an ID token: typ logout+jwt when the header names a typ, the back-channel logout event,
// a sub or a sid, and no nonce. A jti seen before is reported (`replay`), not refused: the OP sends the same jti
// again when it did not get the answer, and the relying party then answers 200 without acting twice.
import { type CryptoKey, decodeProtectedHeader, errors, type JWSHeaderParameters, jwtVerify } from 'jose';
import type { SeenJtiStore } from './events.ts';

export const LOGOUT_TOKEN_TYP = 'logout+jwt';
export const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';

/** A verified logout token: end the sign-in session `sid` (or every session of `sub` when no sid is given). */
export interface LogoutToken {
  iss: string;
  sub?: string;
  sid?: string;
  jti: string;
  iat: number;
  /** True when this jti was verified before: answer 200 and do nothing again. */
  replay: boolean;
}

/** A logout token that does not verify: answer 400 `{"error":"invalid_request"}` (section 2.8). */
export class LogoutTokenError extends Error {
  override readonly name = 'LogoutTokenError';
}

export interface LogoutTokenCheck {
  /** The OP's issuer (the discovery's `issuer`). */
  issuer: string;
  clientId: string;
  /** The OP's key resolver (the discovered JWK Set). */
  getKey(header: JWSHeaderParameters): Promise<CryptoKey>;
  seen: SeenJtiStore;
  now(): number;
  /** How old `iat` may be (default 300 s; the service's tokens live 120 s). */
  maxAgeSeconds?: number;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export async function verifyLogoutToken(token: string, c: LogoutTokenCheck): Promise<LogoutToken> {
  let typ: unknown;
  try {
    typ = decodeProtectedHeader(token).typ;
  } catch {
    throw new LogoutTokenError('not a compact JWS');
  }
  // RFC 8725 3.11: the media type may carry its application/ prefix and any case.
  if (
    typ !== undefined &&
    String(typ)
      .toLowerCase()
      .replace(/^application\//, '') !== LOGOUT_TOKEN_TYP
  )
    throw new LogoutTokenError(`typ must be ${LOGOUT_TOKEN_TYP}`);
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(token, (header) => c.getKey(header), {
      issuer: c.issuer,
      audience: c.clientId,
      algorithms: ['RS256'],
      requiredClaims: ['iat', 'exp', 'jti', 'events'],
      maxTokenAge: c.maxAgeSeconds ?? 300,
      clockTolerance: 5,
      currentDate: new Date(c.now()),
    }));
  } catch (err) {
    if (err instanceof errors.JOSEError) throw new LogoutTokenError(err.message);
    throw err;
  }
  // OIDC Core 3.1.3.7: no audience but this client is trusted.
  const aud = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
  if (aud.some((a) => a !== c.clientId)) throw new LogoutTokenError('aud names another client');
  const events = payload.events;
  if (!isObject(events) || !isObject(events[BACKCHANNEL_LOGOUT_EVENT]))
    throw new LogoutTokenError('events must hold the back-channel logout event');
  if ('nonce' in payload) throw new LogoutTokenError('a logout token carries no nonce');
  const sub = typeof payload.sub === 'string' && payload.sub ? payload.sub : undefined;
  const sid = typeof payload.sid === 'string' && payload.sid ? payload.sid : undefined;
  if (!sub && !sid) throw new LogoutTokenError('a logout token names a sub or a sid');
  const jti = payload.jti;
  if (typeof jti !== 'string' || !jti) throw new LogoutTokenError('jti must be a string');
  const replay = Boolean(await c.seen.has(jti));
  if (!replay) await c.seen.add(jti);
  return {
    iss: c.issuer,
    ...(sub ? { sub } : {}),
    ...(sid ? { sid } : {}),
    jti,
    iat: payload.iat as number,
    replay,
  };
}
