// POST /token grant authorization_code (RFC 6749 4.1.3, OpenID Connect Core 3.1.3) and the token response of a new
// OIDC session (refresh_token: refresh-grant.ts). Every success carries the application's own access token and an
// ID token signed with the platform key, whose at_hash is that access token's. The client has already
// authenticated (client-auth.ts).
//
// Codes are single use: the first exchange consumes the code in one conditional write; any later presentation
// is a replay, which revokes the session the first exchange issued (RFC 6749 4.1.2, "SHOULD revoke"). A code
// exchange that fails its checks (client, redirect URI, PKCE) has consumed the code too, so a verifier cannot be
// guessed by trying again.
import { createHash, timingSafeEqual } from 'node:crypto';
import { revokeFamily } from '@svc/issuance';
import { ServiceError } from '@svc/platform';
import { hashCode } from './authorization';
import { mintIdToken } from './id-token';
import { type IssuedOidcSession, issueOidcSession } from './issue-oidc';
import { InvalidGrant, InvalidRequest, TemporarilyUnavailable } from './oauth-errors';
import type { OidcClient, OidcDomainDeps } from './ports';
import { parseScope } from './scopes';

export interface TokenResponse {
  access_token: string;
  /** DPoP when the access token is bound to the request's proof key (RFC 9449 5). */
  token_type: 'Bearer' | 'DPoP';
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

/** An issuance-core refusal at the token endpoint: an OAuth error naming the reason (unavailable stays so). */
export function grantRefusal(err: unknown): unknown {
  if (!(err instanceof ServiceError)) return err;
  if (err.reason === 'TemporarilyUnavailable') return new TemporarilyUnavailable();
  return new InvalidGrant(err.reason);
}

export async function exchangeCode(
  deps: OidcDomainDeps,
  client: OidcClient,
  p: { code?: string; redirectUri?: string; codeVerifier?: string; dpopJkt?: string },
): Promise<TokenResponse> {
  if (!p.code) throw new InvalidRequest('code is required');
  if (!p.redirectUri) throw new InvalidRequest('redirect_uri is required');
  if (p.codeVerifier !== undefined && !VERIFIER.test(p.codeVerifier)) {
    throw new InvalidRequest('code_verifier must be 43 to 128 characters of [A-Za-z0-9._~-]');
  }
  const consumed = await deps.ports.codes.consume(hashCode(p.code), new Date(deps.clock()));
  if (consumed.kind === 'replayed') {
    if (consumed.sid) await revokeFamily(deps, consumed.sid, 'code_replayed');
    throw new InvalidGrant(UNUSABLE_CODE);
  }
  if (consumed.kind === 'invalid') throw new InvalidGrant(UNUSABLE_CODE);
  const code = consumed.code;
  if (code.oidcClientId !== client.id) throw new InvalidGrant(UNUSABLE_CODE);
  if (code.redirectUri !== p.redirectUri)
    throw new InvalidGrant('redirect_uri differs from the authorization request');
  // RFC 9449 10: a code pushed with a proof is redeemed only with a proof by the same key.
  if (code.dpopJkt !== null && code.dpopJkt !== p.dpopJkt) {
    throw new InvalidGrant('the code is bound to a DPoP key; send a DPoP proof signed by that key');
  }
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
    dpopJkt: p.dpopJkt,
  }).catch((err: unknown) => {
    throw grantRefusal(err);
  });
  if (await deps.ports.codes.attachSession(code.id, issued.sid)) {
    // Replayed while this exchange was issuing: what it issued is revoked, as if the replay had come after.
    await revokeFamily(deps, issued.sid, 'code_replayed');
    throw new InvalidGrant(UNUSABLE_CODE);
  }
  return initialTokenResponse(deps, client, issued, code);
}

/**
 * The token response of a newly issued OIDC session (a code exchange, a device grant): its access token, an ID
 * token stating the sign-in (nonce only when the request had one), a refresh token when offline_access was granted.
 */
export async function initialTokenResponse(
  deps: OidcDomainDeps,
  client: OidcClient,
  issued: IssuedOidcSession,
  signIn: {
    scope: string;
    authTime: Date;
    amr: readonly string[];
    acr: string | null;
    nonce?: string | null;
  },
): Promise<TokenResponse> {
  const scopes = parseScope(signIn.scope);
  const idToken = await mintIdToken(deps, {
    clientId: client.clientId,
    subject: issued.subject,
    sid: issued.idTokenSid,
    authTime: signIn.authTime,
    amr: signIn.amr,
    acr: signIn.acr,
    nonce: signIn.nonce,
    accessToken: issued.accessToken,
  });
  return {
    access_token: issued.accessToken,
    token_type: issued.dpopJkt ? 'DPoP' : 'Bearer',
    expires_in: issued.accessTtl,
    id_token: idToken,
    ...(scopes.includes('offline_access') ? { refresh_token: issued.refreshToken } : {}),
    scope: scopes.join(' '),
  };
}
