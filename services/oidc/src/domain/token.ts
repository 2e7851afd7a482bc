// POST /token grants (RFC 6749 4.1.3 and 6, OpenID Connect Core 3.1.3 and 12): authorization_code and
// refresh_token. Every success carries the application's own access token and an ID token signed with the
// platform key, whose at_hash is that access token's; a refresh grant's ID token keeps auth_time, amr and acr
// and has no nonce. The client has already authenticated (client-auth.ts).
//
// Codes are single use: the first exchange consumes the code in one conditional write; any later presentation
// is a replay, which revokes the session the first exchange issued (RFC 6749 4.1.2, "SHOULD revoke"). A code
// exchange that fails its checks (client, redirect URI, PKCE) has consumed the code too, so a verifier cannot be
// guessed by trying again.
import { createHash, timingSafeEqual } from 'node:crypto';
import {
  REFRESH_TYPS,
  type RotationOutcome,
  revokeFamily,
  rotateRefreshToken,
  verifyPresentedToken,
} from '@svc/issuance';
import { ServiceError } from '@svc/platform';
import type { OidcDeps } from '../deps';
import type { OidcClient } from '../store/clients';
import { hashCode } from './authorization';
import { mintIdToken } from './id-token';
import { issueOidcSession } from './issue-oidc';
import { InvalidGrant, InvalidRequest, TemporarilyUnavailable } from './oauth-errors';
import { parseScope } from './scopes';

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  id_token: string;
  refresh_token?: string;
  scope: string;
}

const UNUSABLE_CODE = 'the code is invalid, expired, already used or was issued to another client';
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/** RFC 7636 4.6: BASE64URL(SHA256(ASCII(code_verifier))) equals the stored challenge, compared in constant time. */
function pkceMatches(challenge: string, verifier: string): boolean {
  const computed = Buffer.from(createHash('sha256').update(verifier, 'ascii').digest('base64url'));
  const expected = Buffer.from(challenge);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}

/** An issuance-core refusal at the token endpoint: an OAuth error naming the reason (503 stays 503). */
export function grantRefusal(err: unknown): unknown {
  if (!(err instanceof ServiceError)) return err;
  if (err.status === 503) return new TemporarilyUnavailable();
  return new InvalidGrant(err.reason);
}

export async function exchangeCode(
  deps: OidcDeps,
  client: OidcClient,
  p: { code?: string; redirectUri?: string; codeVerifier?: string },
): Promise<TokenResponse> {
  if (!p.code) throw new InvalidRequest('code is required');
  if (!p.redirectUri) throw new InvalidRequest('redirect_uri is required');
  if (p.codeVerifier !== undefined && !VERIFIER.test(p.codeVerifier)) {
    throw new InvalidRequest('code_verifier must be 43 to 128 characters of [A-Za-z0-9._~-]');
  }
  const consumed = await deps.codes.consume(hashCode(p.code), new Date(deps.now()));
  if (consumed.kind === 'replayed') {
    if (consumed.sid) await revokeFamily(deps, consumed.sid, 'code_replayed');
    throw new InvalidGrant(UNUSABLE_CODE);
  }
  if (consumed.kind === 'invalid') throw new InvalidGrant(UNUSABLE_CODE);
  const code = consumed.code;
  if (code.oidcClientId !== client.id) throw new InvalidGrant(UNUSABLE_CODE);
  if (code.redirectUri !== p.redirectUri)
    throw new InvalidGrant('redirect_uri differs from the authorization request');
  if (code.codeChallenge) {
    if (!p.codeVerifier || !pkceMatches(code.codeChallenge, p.codeVerifier)) {
      throw new InvalidGrant('PKCE verification failed');
    }
  } else if (p.codeVerifier !== undefined) {
    throw new InvalidGrant('code_verifier given but the authorization request had no code_challenge');
  } else if (client.authMethod === 'none') {
    throw new InvalidGrant('a public client must use PKCE');
  }
  const issued = await issueOidcSession(deps, {
    client,
    accountId: code.accountId,
    scope: code.scope,
    authTime: code.authTime,
    amr: code.amr,
    acr: code.acr ?? undefined,
    browserSessionId: code.browserSessionId ?? undefined,
    authorityVersion: code.authorityVersion ?? undefined,
  }).catch((err: unknown) => {
    throw grantRefusal(err);
  });
  if (await deps.codes.attachSession(code.id, issued.sid)) {
    // Replayed while this exchange was issuing: what it issued is revoked, as if the replay had come after.
    await revokeFamily(deps, issued.sid, 'code_replayed');
    throw new InvalidGrant(UNUSABLE_CODE);
  }
  const scopes = parseScope(code.scope);
  const idToken = await mintIdToken(deps, {
    clientId: client.clientId,
    subject: issued.subject,
    authTime: code.authTime,
    amr: code.amr,
    acr: code.acr,
    nonce: code.nonce,
    accessToken: issued.accessToken,
  });
  return {
    access_token: issued.accessToken,
    token_type: 'Bearer',
    expires_in: issued.accessTtl,
    id_token: idToken,
    ...(scopes.includes('offline_access') ? { refresh_token: issued.refreshToken } : {}),
    scope: scopes.join(' '),
  };
}

const ROTATION_REFUSALS: Record<Exclude<RotationOutcome['kind'], 'rotated'>, string> = {
  not_found: 'the refresh token is invalid',
  revoked: 'the session was revoked',
  suspended: 'the session is suspended',
  expired: 'the refresh token expired',
  family_compromised: 'the refresh token was reused; the session is revoked',
  race_lost: 'the refresh token was reused; the session is revoked',
  conflict: 'the refresh token was already rotated',
  stale: 'the authorization changed since sign-in; sign in again',
};

export async function refreshGrant(
  deps: OidcDeps,
  client: OidcClient,
  p: { refreshToken?: string; scope?: string },
): Promise<TokenResponse> {
  if (!p.refreshToken) throw new InvalidRequest('refresh_token is required');
  let presented: Awaited<ReturnType<typeof verifyPresentedToken>>;
  try {
    presented = await verifyPresentedToken(deps, deps.apps, p.refreshToken, { typ: REFRESH_TYPS });
  } catch {
    throw new InvalidGrant(ROTATION_REFUSALS.not_found);
  }
  const { app, claims } = presented;
  if (app.id !== client.applicationId) throw new InvalidGrant(ROTATION_REFUSALS.not_found);
  // The session must have been issued to this client: another client of the same application cannot refresh it.
  const session = await deps.oidcSessions.read(claims.sid);
  if (!session || session.oidcClientId !== client.id) throw new InvalidGrant(ROTATION_REFUSALS.not_found);
  const scopes = parseScope(session.scope ?? '');
  if (!scopes.includes('offline_access')) throw new InvalidGrant(ROTATION_REFUSALS.not_found);
  if (p.scope !== undefined && parseScope(p.scope).some((s) => !scopes.includes(s))) {
    throw new InvalidGrant('scope exceeds the scope originally granted');
  }
  const outcome = await rotateRefreshToken(deps, {
    app,
    claims,
    presentedToken: p.refreshToken,
    retryAllowanceMs: deps.oidc.refreshRetryWindowMs,
    protocol: 'OIDC',
  }).catch((err: unknown) => {
    throw grantRefusal(err);
  });
  if (outcome.kind !== 'rotated') throw new InvalidGrant(ROTATION_REFUSALS[outcome.kind]);
  const idToken = await mintIdToken(deps, {
    clientId: client.clientId,
    subject: session.subject,
    authTime: session.authTime,
    amr: session.amr,
    acr: session.acr,
    accessToken: outcome.accessToken,
  });
  return {
    access_token: outcome.accessToken,
    token_type: 'Bearer',
    expires_in: session.accessTtl,
    id_token: idToken,
    refresh_token: outcome.refreshToken,
    scope: scopes.join(' '),
  };
}
