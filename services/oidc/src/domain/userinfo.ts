// /userinfo (OpenID Connect Core 5.3) and /claim-state for access tokens the OIDC host issued: an account access
// token (workload tokens are refused) of an active OIDC-protocol session. Data is read live, never from the token;
// userinfo discloses by the session's granted scopes, then the claim policy and the person's consent.
import { profileClaims, sessionAuthorityMoved, verifyPresentedToken } from '@svc/issuance';
import type { BearerRequest } from '@svc/platform';
import {
  type AuthorizationScheme,
  buildClaimView,
  checkTokenBinding,
  DpopBindingError,
  DpopProofError,
  parseAuthorization,
  TYP,
  toClaimStateView,
} from '@svc/token-core';
import { DPOP_CHALLENGE, InvalidDpopProof, InvalidToken } from './oauth-errors';
import type { OidcDomainDeps } from './ports';
import { parseScope } from './scopes';

/**
 * The token of an `Authorization: Bearer` or `DPoP` header (RFC 6750 2.1, RFC 9449 7.1); a missing header is a
 * challenge without error.
 */
export function presentedToken(header: string | undefined): { scheme: AuthorizationScheme; token: string } {
  if (header === undefined || header.trim() === '') throw new InvalidToken('no access token', false);
  const presented = parseAuthorization(header);
  if (!presented) throw new InvalidToken('malformed Authorization header');
  return presented;
}

/** The token of the Authorization header, whichever scheme (CORS decides on the token's client alone). */
export function bearerToken(header: string | undefined): string {
  return presentedToken(header).token;
}

/**
 * The DPoP rule of a resource (RFC 9449 7): a bound token only as DPoP with a proof by its key for this request,
 * an unbound one only as Bearer. Refusals name the DPoP challenge.
 */
async function checkBinding(
  deps: OidcDomainDeps,
  req: BearerRequest,
  path: string,
  scheme: AuthorizationScheme,
  token: string,
  jkt: string | undefined,
): Promise<void> {
  try {
    await checkTokenBinding({
      scheme,
      token,
      jkt,
      proof: req.dpop,
      method: req.method,
      url: `${deps.oidc.oidcUrl}${path}`,
      now: deps.clock(),
      replay: deps.ports.dpopReplay,
    });
  } catch (err) {
    if (err instanceof DpopProofError) throw new InvalidDpopProof(err.message, 'resource');
    if (err instanceof DpopBindingError) throw new InvalidToken(err.message, true, DPOP_CHALLENGE);
    throw err;
  }
}

async function authorize(deps: OidcDomainDeps, req: BearerRequest, path: string) {
  const { scheme, token } = presentedToken(req.authorization);
  let presented: Awaited<ReturnType<typeof verifyPresentedToken>>;
  try {
    // Account access tokens only: a workload token (typ workload-access) fails here however valid its signature.
    presented = await verifyPresentedToken(deps, deps.apps, token, { typ: [TYP.accountAccess] });
  } catch {
    throw new InvalidToken('the access token is invalid or expired');
  }
  const { app, claims } = presented;
  await checkBinding(deps, req, path, scheme, token, claims.cnf?.jkt);
  // One read: the session, its account and the account's grants (store/oidc-sessions.ts).
  const read = await deps.ports.oidcSessions.readForUserinfo(claims.sid);
  if (
    !read ||
    read.applicationId !== app.id ||
    read.subject !== claims.sub ||
    read.status !== 'ACTIVE' ||
    read.expiresAt <= new Date(deps.clock())
  ) {
    throw new InvalidToken('the access token is not of an active OIDC session');
  }
  const { account, grants } = read.snapshot;
  if (account?.status !== 'ACTIVE') throw new InvalidToken('the account is not active');
  // The session's authority moved (a passkey removed, a status change): ended, as its refresh would be, even
  // where the change's own revocation has not reached this row (an issue racing the removal).
  if (sessionAuthorityMoved(read.authorityVersion, account))
    throw new InvalidToken('the access token is not of an active OIDC session');
  const view = buildClaimView(app.claimRequirements, grants);
  return { subject: read.subject, account, view, scopes: parseScope(read.scope ?? '') };
}

export async function userinfo(deps: OidcDomainDeps, req: BearerRequest): Promise<Record<string, unknown>> {
  const { subject, account, view, scopes } = await authorize(deps, req, '/userinfo');
  return { sub: subject, ...profileClaims(account, view, subject, scopes) };
}

export async function claimState(deps: OidcDomainDeps, req: BearerRequest) {
  const { subject, view } = await authorize(deps, req, '/claim-state');
  return { sub: subject, claims: toClaimStateView(view) };
}
