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
import { type BearerRequest, OAuthError } from '@svc/platform';
import {
  type AuthorizationScheme,
  checkTokenBinding,
  DpopBindingError,
  DpopProofError,
  parseAuthorization,
  TYP,
  toClaimStateView,
} from '@svc/token-core';
import type { SessionDomainDeps } from './ports';
import { statusOf } from './session-status';

/** The DPoP challenge (RFC 9449 7.1): the scheme and the algorithms a proof may use. */
const DPOP_CHALLENGE = 'DPoP realm="session", algs="ES256 EdDSA RS256"';

export function invalidToken(challenge = 'Bearer realm="session"'): OAuthError {
  return new OAuthError('invalid_token', {
    headers: { 'WWW-Authenticate': `${challenge}, error="invalid_token"` },
  });
}

/** The token of an `Authorization: Bearer` or `DPoP` header (RFC 6750 2.1, RFC 9449 7.1). */
export function presentedToken(header: string | undefined): { scheme: AuthorizationScheme; token: string } {
  const presented = parseAuthorization(header);
  if (!presented) throw invalidToken();
  return presented;
}

/** A DPoP-bound token only as DPoP with a proof by its key for this request; an unbound one only as Bearer. */
async function checkBinding(
  deps: SessionDomainDeps,
  req: BearerRequest,
  path: string,
  presented: { scheme: AuthorizationScheme; token: string },
  jkt: string | undefined,
): Promise<void> {
  try {
    await checkTokenBinding({
      ...presented,
      jkt,
      proof: req.dpop,
      method: req.method,
      url: `${deps.sessionUrl}${path}`,
      now: deps.clock(),
      replay: deps.ports.dpopReplay,
    });
  } catch (err) {
    if (err instanceof DpopProofError) {
      throw new OAuthError('invalid_dpop_proof', {
        description: err.message,
        variant: 'resource',
        headers: { 'WWW-Authenticate': `${DPOP_CHALLENGE}, error="invalid_dpop_proof"` },
      });
    }
    if (err instanceof DpopBindingError) throw invalidToken(DPOP_CHALLENGE);
    throw err;
  }
}

async function authorize(deps: SessionDomainDeps, req: BearerRequest, path: string) {
  const bearer = presentedToken(req.authorization);
  let presented: Awaited<ReturnType<typeof verifyPresentedToken>>;
  try {
    presented = await verifyPresentedToken(deps, deps.apps, bearer.token, { typ: ACCESS_TYPS });
  } catch {
    throw invalidToken();
  }
  const { app, typ, claims } = presented;
  await checkBinding(deps, req, path, bearer, claims.cnf?.jkt);
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

export async function claimState(deps: SessionDomainDeps, req: BearerRequest) {
  const { subject, view } = await authorize(deps, req, '/claim-state');
  return { sub: subject, claims: toClaimStateView(view) };
}

export async function userinfo(
  deps: SessionDomainDeps,
  req: BearerRequest,
): Promise<Record<string, unknown>> {
  const { subject, account, view } = await authorize(deps, req, '/userinfo');
  // Session tokens carry no scopes: every profile claim the application's policy and the consent allow.
  return { sub: subject, ...profileClaims(account, view, subject, ['email', 'profile']) };
}
