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
  type RotationRead,
  revokeFamily,
  rotateRefreshToken,
  verifyPresentedToken,
} from '@svc/issuance';
import {
  countRefreshOutcome,
  countTokensIssued,
  type OAuthError,
  type Reason,
  ServiceError,
} from '@svc/platform';
import { TokenVerificationError } from '@svc/token-core';
import { hashCode } from './authorization';
import { mintIdToken } from './id-token';
import { type IssuedOidcSession, issueOidcSession } from './issue-oidc';
import { InvalidGrant, InvalidRequest, InvalidScope, TemporarilyUnavailable } from './oauth-errors';
import type { OidcClient, OidcDomainDeps } from './ports';
import { parseScope, type Scope } from './scopes';

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

/** An issuance-core refusal at the token endpoint: an OAuth error naming the reason (unavailable stays so). */
export function grantRefusal(err: unknown): unknown {
  if (!(err instanceof ServiceError)) return err;
  if (err.reason === 'TemporarilyUnavailable') return new TemporarilyUnavailable();
  return new InvalidGrant(err.reason);
}

export async function exchangeCode(
  deps: OidcDomainDeps,
  client: OidcClient,
  p: { code?: string; redirectUri?: string; codeVerifier?: string },
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
    authTime: signIn.authTime,
    amr: signIn.amr,
    acr: signIn.acr,
    nonce: signIn.nonce,
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

/** The session host's reason for each refusal, so refresh_outcomes_total counts both hosts' refreshes alike. */
const OUTCOME_REASONS: Record<Exclude<RotationOutcome['kind'], 'rotated'>, Reason> = {
  not_found: 'RefreshTokenInvalid',
  revoked: 'RefreshTokenRevoked',
  suspended: 'RefreshTokenSuspended',
  expired: 'RefreshTokenExpired',
  family_compromised: 'RefreshTokenFamilyCompromised',
  race_lost: 'RefreshTokenFamilyCompromised',
  conflict: 'RefreshTokenRotationRaceLost',
  stale: 'AuthorizationArtifactStale',
};

/** The session host's reason for a refresh token that does not verify (as its /refresh classifies it). */
function verificationReason(err: unknown): Reason {
  if (!(err instanceof TokenVerificationError)) return 'RefreshTokenInvalid';
  switch (err.failure) {
    case 'wrong_type':
      return 'RefreshTokenInvalidType';
    case 'bad_signature':
    case 'unknown_key':
      return 'RefreshTokenInvalidSignature';
    case 'expired':
      return 'RefreshTokenExpired';
    default:
      return 'RefreshTokenInvalid';
  }
}

/**
 * A refusal of the refresh grant on its way out: the OAuth error the client gets, and the outcome
 * refresh_outcomes_total counts it under (refreshGrant unwraps it).
 */
class RefreshRefusal extends Error {
  constructor(
    readonly answer: OAuthError,
    readonly outcome: string,
  ) {
    super(answer.message);
    this.name = 'RefreshRefusal';
  }
}

const refusal = (outcome: string, answer: OAuthError) => new RefreshRefusal(answer, outcome);
const notFound = () => refusal('RefreshTokenInvalid', new InvalidGrant(ROTATION_REFUSALS.not_found));

/**
 * The refresh grant's own conditions, from the rotation read before anything is consumed: the session was issued
 * to this client (another client of the same application gets invalid_grant and the token stays usable), it still
 * holds offline_access, and a requested scope is no wider than the session's and keeps openid (invalid_scope).
 */
function admitFor(client: OidcClient, requested: Scope[] | undefined) {
  return (read: RotationRead): void => {
    if (read.oidc?.oidcClientId !== client.id) throw notFound();
    const granted = parseScope(read.session.scope ?? '');
    if (!granted.includes('offline_access')) throw notFound();
    if (requested?.some((s) => !granted.includes(s))) {
      throw refusal('invalid_scope', new InvalidScope('scope exceeds the scope originally granted'));
    }
    // CONTRACTS "OIDC host": openid is required; narrowing may drop any other scope.
    if (requested && !requested.includes('openid')) {
      throw refusal('invalid_scope', new InvalidScope('scope must include openid'));
    }
  };
}

/**
 * The refresh grant, counted as the session host counts its /refresh: refresh_outcomes_total by outcome (rotated,
 * or the session host's reason for the refusal) and, when it rotates, tokens_issued_total{method="refresh"}.
 */
export async function refreshGrant(
  deps: OidcDomainDeps,
  client: OidcClient,
  p: { refreshToken?: string; scope?: string },
): Promise<TokenResponse> {
  if (!p.refreshToken) throw new InvalidRequest('refresh_token is required');
  try {
    const response = await rotateGrant(deps, client, p.refreshToken, p.scope);
    countRefreshOutcome(deps.metrics, 'rotated');
    countTokensIssued(deps.metrics, 'refresh');
    return response;
  } catch (err) {
    if (err instanceof RefreshRefusal) {
      countRefreshOutcome(deps.metrics, err.outcome);
      throw err.answer;
    }
    countRefreshOutcome(deps.metrics, err instanceof ServiceError ? err.reason : 'unavailable');
    throw grantRefusal(err);
  }
}

/**
 * One rotation, in the round trips of a session-host refresh: the rotation read brings the OIDC session (client,
 * amr, acr) and the session's auth_time and scope, so nothing else is read. A requested scope narrower than the
 * session's becomes the session's scope from this rotation on (the consuming write stores it): /userinfo answers
 * by it, and without offline_access the answer has no refresh token and the session refreshes no more.
 */
async function rotateGrant(
  deps: OidcDomainDeps,
  client: OidcClient,
  refreshToken: string,
  scope: string | undefined,
): Promise<TokenResponse> {
  let presented: Awaited<ReturnType<typeof verifyPresentedToken>>;
  try {
    presented = await verifyPresentedToken(deps, deps.apps, refreshToken, { typ: REFRESH_TYPS });
  } catch (err) {
    throw refusal(verificationReason(err), new InvalidGrant(ROTATION_REFUSALS.not_found));
  }
  const { app, claims } = presented;
  if (app.id !== client.applicationId) throw notFound();
  // An empty scope parameter is taken as omitted (RFC 6749 6: omitted means the scope granted).
  const requested = scope?.trim() ? parseScope(scope) : undefined;
  const outcome = await rotateRefreshToken(deps, {
    app,
    claims,
    presentedToken: refreshToken,
    retryAllowanceMs: deps.oidc.refreshRetryWindowMs,
    protocol: 'OIDC',
    admit: admitFor(client, requested),
    scope: requested?.join(' '),
  });
  if (outcome.kind !== 'rotated') {
    throw refusal(OUTCOME_REASONS[outcome.kind], new InvalidGrant(ROTATION_REFUSALS[outcome.kind]));
  }
  const { session, oidc } = outcome;
  const scopes = requested ?? parseScope(session.scope ?? '');
  const idToken = await mintIdToken(deps, {
    clientId: client.clientId,
    subject: session.subject,
    authTime: session.authTime,
    amr: oidc?.amr ?? [],
    acr: oidc?.acr,
    accessToken: outcome.accessToken,
  });
  return {
    access_token: outcome.accessToken,
    token_type: 'Bearer',
    expires_in: session.accessTtl,
    id_token: idToken,
    ...(scopes.includes('offline_access') ? { refresh_token: outcome.refreshToken } : {}),
    scope: scopes.join(' '),
  };
}
