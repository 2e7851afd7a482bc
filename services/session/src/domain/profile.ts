// Session /userinfo and /claim-state: live profile and consent data for a Bearer access token of an active
// APPLICATION-protocol session. Nothing is copied from the token.
import {
  ACCESS_TYPS,
  loadClaimView,
  profileClaims,
  sessionAuthorityMoved,
  verifyPresentedToken,
  workloadAuthoritative,
} from '@svc/issuance';
import { OAuthError } from '@svc/platform';
import { TYP, toClaimStateView } from '@svc/token-core';
import type { SessionDomainDeps } from './ports';
import { statusOf } from './session-status';

export function invalidToken(): OAuthError {
  return new OAuthError('invalid_token', {
    headers: { 'WWW-Authenticate': 'Bearer realm="session", error="invalid_token"' },
  });
}

export function bearerToken(header: string | undefined): string {
  const m = /^Bearer +([A-Za-z0-9_.~+/=-]+)\s*$/i.exec(header ?? '');
  if (!m?.[1]) throw invalidToken();
  return m[1];
}

async function authorize(deps: SessionDomainDeps, token: string) {
  let presented: Awaited<ReturnType<typeof verifyPresentedToken>>;
  try {
    presented = await verifyPresentedToken(deps, deps.apps, token, { typ: ACCESS_TYPS });
  } catch {
    throw invalidToken();
  }
  const { app, typ, claims } = presented;
  const session = await deps.ports.sessionCache.get(claims.sid);
  const isWorkloadToken = typ === TYP.workloadAccess;
  if (
    !session ||
    session.applicationId !== app.id ||
    session.protocol !== 'APPLICATION' ||
    session.subject !== claims.sub ||
    isWorkloadToken !== !!session.workloadId ||
    statusOf(session, new Date(deps.clock())) !== 'active'
  ) {
    throw invalidToken();
  }
  // A workload token only while its principal, generation, actor subject and source credential stay
  // authoritative: the rule introspection applies (one SQL expression, see libs/issuance workload-authority).
  if (
    isWorkloadToken &&
    !(await workloadAuthoritative(deps.ports.issuanceReads, session, claims.act?.sub ?? ''))
  ) {
    throw invalidToken();
  }
  const account = await deps.ports.accounts.loadAccount(session.accountId);
  if (account?.status !== 'ACTIVE') throw invalidToken();
  // The account's authority moved since the session was issued (a passkey removed, a status change, an SSO link):
  // ended, as its refresh would be (AuthorizationArtifactStale) and as the OIDC host's /userinfo answers, even
  // where the change's own revocation has not reached this row.
  if (sessionAuthorityMoved(session.authorityVersion, account)) throw invalidToken();
  const view = await loadClaimView(deps.ports.accounts, account.id, app.id, app.claimRequirements);
  return { subject: claims.sub!, account, view };
}

export async function claimState(deps: SessionDomainDeps, token: string) {
  const { subject, view } = await authorize(deps, token);
  return { sub: subject, claims: toClaimStateView(view) };
}

export async function userinfo(deps: SessionDomainDeps, token: string): Promise<Record<string, unknown>> {
  const { subject, account, view } = await authorize(deps, token);
  // Session tokens carry no scopes: every profile claim the application's policy and the consent allow.
  return { sub: subject, ...profileClaims(account, view, subject, ['email', 'profile']) };
}
