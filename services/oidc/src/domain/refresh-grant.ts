// POST /token grant_type=refresh_token (RFC 6749 6, OpenID Connect Core 12) on the refresh policy: the OIDC
// host's own retry window, only OIDC sessions issued to the presenting client that still hold offline_access, a
// narrower scope allowed; every refusal an OAuth error, counted as every host counts its refreshes.
import {
  createRefresh,
  RefreshRefusal,
  type RefreshRequest,
  type Rotated,
  type RotationRefusal,
  unverifiedAs,
} from '@svc/issuance';
import { mintIdToken, signInSid } from './id-token';
import { InvalidGrant, InvalidRequest, InvalidScope } from './oauth-errors';
import type { OidcClient, OidcDomainDeps } from './ports';
import { parseScope, type Scope } from './scopes';
import { grantRefusal, type TokenResponse } from './token';

const invalidGrant = (description: string) => () => new InvalidGrant(description);
const notFound = invalidGrant('the refresh token is invalid');
const compromised = invalidGrant('the refresh token was reused; the session is revoked');

const REFUSED: Readonly<Record<RotationRefusal, () => InvalidGrant>> = {
  not_found: notFound,
  revoked: invalidGrant('the session was revoked'),
  suspended: invalidGrant('the session is suspended'),
  expired: invalidGrant('the refresh token expired'),
  family_compromised: compromised,
  race_lost: compromised,
  conflict: invalidGrant('the refresh token was already rotated'),
  stale: invalidGrant('the authorization changed since sign-in; sign in again'),
};

/** One grant's request, and what its conditions make of it for the rotation core. */
interface OidcRefresh extends RefreshRequest {
  client: OidcClient;
  /** The `scope` parameter as sent. */
  scopeParam: string | undefined;
  /** The scope asked for, when one was (an empty parameter is taken as omitted, RFC 6749 6). */
  requested: Scope[] | undefined;
}

const refusedAs = (outcome: string, answer: Error) => new RefreshRefusal(outcome, answer);
const notIssuedHere = () => refusedAs('RefreshTokenInvalid', notFound());
const notBoundKey = () =>
  refusedAs(
    'RefreshTokenInvalid',
    new InvalidGrant('the refresh token is bound to a DPoP key; send a DPoP proof signed by that key'),
  );

/**
 * The refresh grant's own conditions, from the rotation read before anything is consumed: the session was issued
 * to this client (another client of the same application gets invalid_grant and the token stays usable), it still
 * holds offline_access, and a requested scope is no wider than the session's and keeps openid (invalid_scope).
 */
function admitFor(
  client: OidcClient,
  requested: Scope[] | undefined,
  dpopJkt: string | undefined,
): RefreshRequest['admit'] {
  return (read) => {
    if (read.oidc?.oidcClientId !== client.id) throw notIssuedHere();
    // RFC 9449 5: a bound refresh token (a public client's, issued with a proof) needs a proof by the same key.
    if (read.oidc.dpopJkt !== null && read.oidc.dpopJkt !== dpopJkt) throw notBoundKey();
    const granted = parseScope(read.session.scope ?? '');
    if (!granted.includes('offline_access')) throw notIssuedHere();
    if (requested?.some((s) => !granted.includes(s))) {
      throw refusedAs('invalid_scope', new InvalidScope('scope exceeds the scope originally granted'));
    }
    // CONTRACTS "OIDC host": openid is required; narrowing may drop any other scope.
    if (requested && !requested.includes('openid')) {
      throw refusedAs('invalid_scope', new InvalidScope('scope must include openid'));
    }
  };
}

const refreshOidc = createRefresh<OidcDomainDeps, Rotated, OidcRefresh>({
  protocol: 'OIDC',
  retryAllowanceMs: (deps) => deps.oidc.refreshRetryWindowMs,
  // A refresh token that does not verify is simply invalid (RFC 6749 5.2 invalid_grant).
  unverified: unverifiedAs(notFound),
  refused: REFUSED,
  failed: grantRefusal,
  prepare(_deps, presented, req) {
    if (presented.app.id !== req.client.applicationId) throw notIssuedHere();
    // A requested scope narrower than the session's becomes the session's scope from this rotation on (the
    // consuming write stores it).
    const requested = req.scopeParam?.trim() ? parseScope(req.scopeParam) : undefined;
    req.requested = requested;
    req.admit = admitFor(req.client, requested, req.dpopJkt);
    req.scope = requested?.join(' ');
  },
  answer: (rotated) => rotated,
});

/**
 * The refresh grant, in the round trips of a session-host refresh: the rotation read brings the OIDC session (client,
 * amr, acr) and the session's auth_time and scope, so nothing else is read. /userinfo answers by the (possibly
 * narrowed) scope, and without offline_access the answer has no refresh token and the session refreshes no more.
 */
export async function refreshGrant(
  deps: OidcDomainDeps,
  client: OidcClient,
  p: { refreshToken?: string; scope?: string; dpopJkt?: string },
): Promise<TokenResponse> {
  if (!p.refreshToken) throw new InvalidRequest('refresh_token is required');
  const req: OidcRefresh = {
    client,
    scopeParam: p.scope,
    requested: undefined,
    admit: undefined,
    scope: undefined,
    dpopJkt: p.dpopJkt,
  };
  const { session, oidc, accessToken, refreshToken } = await refreshOidc(deps, p.refreshToken, req);
  const scopes = req.requested ?? parseScope(session.scope ?? '');
  let idToken: string;
  try {
    idToken = await mintIdToken(deps, {
      clientId: client.clientId,
      subject: session.subject,
      sid: oidc?.idTokenSid ?? signInSid(undefined, session.id),
      authTime: session.authTime,
      amr: oidc?.amr ?? [],
      acr: oidc?.acr,
      accessToken,
    });
  } catch (err) {
    throw grantRefusal(err);
  }
  return {
    access_token: accessToken,
    token_type: p.dpopJkt ? 'DPoP' : 'Bearer',
    expires_in: session.accessTtl,
    id_token: idToken,
    ...(scopes.includes('offline_access') ? { refresh_token: refreshToken } : {}),
    scope: scopes.join(' '),
  };
}
