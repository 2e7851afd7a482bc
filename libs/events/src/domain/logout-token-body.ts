// The body builder of a back-channel logout row (OIDC Back-Channel Logout 1.0): the form `logout_token=<JWT>`, the
// JWT with header typ logout+jwt, signed RS256 under the OIDC host's platform key (the ID tokens' key set) at each
// attempt, so that a retry hours later is not already expired: iss OIDC_URL, aud the client_id, iat, exp, jti (the
// row id: the same on every redelivery), sub (the client's subject, as in its ID tokens), sid, events; no nonce.
import type { Clock } from '@svc/platform';
import { type Signer, signJws } from '@svc/token-core';
import { BACKCHANNEL_LOGOUT_EVENT, LOGOUT_TOKEN_TTL_SECONDS, LOGOUT_TOKEN_TYP } from './event-types';
import type { BodyBuilder, ClaimedRow } from './ports';

/** What the outbox row of a logout token carries (JSON; never a secret). */
export interface LogoutTokenPayload {
  clientId: string;
  subject: string;
  sid: string;
}

export function logoutTokenClaims(
  row: { id: string; payload: LogoutTokenPayload },
  c: { issuer: string; now: number },
): Record<string, unknown> {
  const iat = Math.floor(c.now / 1000);
  return {
    iss: c.issuer,
    aud: row.payload.clientId,
    iat,
    exp: iat + LOGOUT_TOKEN_TTL_SECONDS,
    jti: row.id,
    sub: row.payload.subject,
    sid: row.payload.sid,
    events: { [BACKCHANNEL_LOGOUT_EVENT]: {} },
  };
}

export function logoutTokenBody(c: {
  /** OIDC_URL: the ID tokens' iss. */
  issuer: string;
  /** The OIDC host's active platform signer (the key ring's, cached). */
  signer(): Promise<Signer | undefined>;
  clock: Clock;
}): BodyBuilder {
  return async (row: ClaimedRow) => {
    const payload = row.payload as LogoutTokenPayload;
    if (!payload?.clientId || !payload.sid) throw new Error('the logout token names no client or sid');
    const signer = await c.signer();
    if (!signer) throw new Error('the OIDC host has no active signing key');
    const claims = logoutTokenClaims({ id: row.id, payload }, { issuer: c.issuer, now: c.clock() });
    const token = await signJws(signer, LOGOUT_TOKEN_TYP, JSON.stringify(claims));
    return new URLSearchParams({ logout_token: token }).toString();
  };
}
