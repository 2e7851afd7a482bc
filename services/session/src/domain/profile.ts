// Session /userinfo and /claim-state: live profile and consent data for a Bearer access token of an active
// APPLICATION-protocol session. Nothing is copied from the token.
import {
  ACCESS_TYPS,
  loadAccount,
  loadClaimView,
  verifyPresentedToken,
  workloadAuthoritative,
} from '@svc/issuance';
import { OAuthError } from '@svc/platform';
import { type ClaimEntry, type ClaimKey, discloseClaim, TYP, toClaimStateView } from '@svc/token-core';
import type { SessionDeps } from '../deps';
import { statusOf } from './session-status';

export const BEARER_HEADERS = { 'Cache-Control': 'no-store', Pragma: 'no-cache', Vary: 'Authorization' };

export function invalidToken(): OAuthError {
  return new OAuthError(
    'invalid_token',
    401,
    {},
    {
      ...BEARER_HEADERS,
      'WWW-Authenticate': 'Bearer realm="session", error="invalid_token"',
    },
  );
}

export function bearerToken(header: string | undefined): string {
  const m = /^Bearer +([A-Za-z0-9_.~+/=-]+)\s*$/i.exec(header ?? '');
  if (!m?.[1]) throw invalidToken();
  return m[1];
}

async function authorize(deps: SessionDeps, token: string) {
  let presented: Awaited<ReturnType<typeof verifyPresentedToken>>;
  try {
    presented = await verifyPresentedToken(deps, deps.apps, token, { typ: ACCESS_TYPS });
  } catch {
    throw invalidToken();
  }
  const { app, typ, claims } = presented;
  const session = await deps.sessions.get(claims.sid);
  const isWorkloadToken = typ === TYP.workloadAccess;
  if (
    !session ||
    session.applicationId !== app.id ||
    session.protocol !== 'APPLICATION' ||
    session.subject !== claims.sub ||
    isWorkloadToken !== !!session.workloadId ||
    statusOf(session, deps.now()) !== 'active'
  ) {
    throw invalidToken();
  }
  // A workload token only while its principal, generation, actor subject and source credential stay
  // authoritative: the rule introspection applies (one SQL expression, see libs/issuance workload-authority).
  if (isWorkloadToken && !(await workloadAuthoritative(deps.db, session, claims.act?.sub ?? ''))) {
    throw invalidToken();
  }
  const account = await loadAccount(deps.db, session.accountId);
  if (account?.status !== 'ACTIVE') throw invalidToken();
  const view = await loadClaimView(deps.db, account.id, app.id, app.claimRequirements);
  return { subject: claims.sub!, account, view };
}

export async function claimState(deps: SessionDeps, token: string) {
  const { subject, view } = await authorize(deps, token);
  return { sub: subject, claims: toClaimStateView(view) };
}

export async function userinfo(deps: SessionDeps, token: string): Promise<Record<string, unknown>> {
  const { subject, account, view } = await authorize(deps, token);
  const disclose = (key: ClaimKey, real: string | null) =>
    discloseClaim(key, view[key] as ClaimEntry, real, subject);
  const out: Record<string, unknown> = { sub: subject };
  const email = disclose('email', account.email);
  if (email !== undefined) {
    out.email = email;
    out.email_verified = email === account.email ? account.emailVerified : false;
  }
  const given = disclose('firstName', account.givenName);
  const family = disclose('lastName', account.familyName);
  if (given !== undefined) out.given_name = given;
  if (family !== undefined) out.family_name = family;
  if (given !== undefined) out.name = family ? `${given} ${family}` : given;
  const picture = disclose('staticAvatar', account.picture);
  if (picture !== undefined) out.picture = picture;
  const animated = disclose('animatedAvatar', account.pictureAnimated);
  if (animated !== undefined) out.picture_animated = animated;
  return out;
}
