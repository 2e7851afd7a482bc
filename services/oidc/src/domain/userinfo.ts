// /userinfo (OpenID Connect Core 5.3) and /claim-state for access tokens the OIDC host issued: an account access
// token (workload tokens are refused) of an active OIDC-protocol session. Data is read live, never from the token;
// userinfo discloses by the session's granted scopes, then the claim policy and the person's consent.
import { profileClaims, sessionAuthorityMoved, verifyPresentedToken } from '@svc/issuance';
import { buildClaimView, TYP, toClaimStateView } from '@svc/token-core';
import { InvalidToken } from './oauth-errors';
import type { OidcDomainDeps } from './ports';
import { parseScope } from './scopes';

/** The token of an `Authorization: Bearer` header (RFC 6750 2.1); a missing header is a challenge without error. */
export function bearerToken(header: string | undefined): string {
  if (header === undefined || header.trim() === '') throw new InvalidToken('no access token', false);
  const m = /^Bearer +([A-Za-z0-9_.~+/-]+=*)\s*$/i.exec(header);
  if (!m?.[1]) throw new InvalidToken('malformed Authorization header');
  return m[1];
}

async function authorize(deps: OidcDomainDeps, token: string) {
  let presented: Awaited<ReturnType<typeof verifyPresentedToken>>;
  try {
    // Account access tokens only: a workload token (typ workload-access) fails here however valid its signature.
    presented = await verifyPresentedToken(deps, deps.apps, token, { typ: [TYP.accountAccess] });
  } catch {
    throw new InvalidToken('the access token is invalid or expired');
  }
  const { app, claims } = presented;
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

export async function userinfo(deps: OidcDomainDeps, token: string): Promise<Record<string, unknown>> {
  const { subject, account, view, scopes } = await authorize(deps, token);
  return { sub: subject, ...profileClaims(account, view, subject, scopes) };
}

export async function claimState(deps: OidcDomainDeps, token: string) {
  const { subject, view } = await authorize(deps, token);
  return { sub: subject, claims: toClaimStateView(view) };
}
