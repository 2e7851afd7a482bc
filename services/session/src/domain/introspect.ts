// Session /introspect: a signed access token in, the live status of its session (its account's and workload's authority
// included) out; the token's own exp is ignored.
import { ACCESS_TYPS, verifyPresentedToken, workloadAuthoritative } from '@svc/issuance';
import { ServiceError } from '@svc/platform';
import { TokenVerificationError, TYP } from '@svc/token-core';
import type { SessionDomainDeps } from './ports';
import { type IntrospectionStatus, statusOf } from './session-status';

export interface IntrospectionResult {
  status: IntrospectionStatus;
  recommendedRecheckSeconds: number;
  /** The key a DPoP-bound token is bound to (RFC 9449 6.2), for an active session only. */
  cnf?: { jkt: string };
}

/** Terminal states (revoked, expired, unknown) never change back, so clients need not ask again soon. */
const TERMINAL_RECHECK_SECONDS = 3600;

export async function introspect(deps: SessionDomainDeps, accessToken: string): Promise<IntrospectionResult> {
  let presented: Awaited<ReturnType<typeof verifyPresentedToken>>;
  try {
    presented = await verifyPresentedToken(deps, deps.apps, accessToken, {
      typ: ACCESS_TYPS,
      ignoreExpiry: true,
    });
  } catch (err) {
    if (err instanceof TokenVerificationError) {
      throw new ServiceError('AccessTokenInvalid', {
        message: 'the access token is malformed or its signature does not verify against a published key',
      });
    }
    throw err;
  }
  const { app, typ, claims } = presented;
  const session = await deps.ports.sessionCache.get(claims.sid);
  const isWorkloadToken = typ === TYP.workloadAccess;
  const bound =
    session &&
    session.applicationId === app.id &&
    session.subject === claims.sub &&
    isWorkloadToken === !!session.workloadId;
  const now = new Date(deps.clock());
  let status = statusOf(bound ? session : null, now);
  if (
    status === 'active' &&
    isWorkloadToken &&
    !(await workloadAuthoritative(deps.ports.issuanceReads, session!, claims.act!.sub))
  ) {
    status = 'revoked';
  }
  if (status !== 'active') {
    // A suspension can be lifted (`sessions resume`), so a suspended session is worth asking about again soon.
    const recheck = bound && session.status === 'SUSPENDED' ? deps.recheckSeconds : TERMINAL_RECHECK_SECONDS;
    return { status, recommendedRecheckSeconds: recheck };
  }
  const remaining = Math.ceil((session!.expiresAt.getTime() - now.getTime()) / 1000);
  const recommendedRecheckSeconds = Math.max(1, Math.min(deps.recheckSeconds, remaining));
  const jkt = claims.cnf?.jkt;
  return jkt ? { status, recommendedRecheckSeconds, cnf: { jkt } } : { status, recommendedRecheckSeconds };
}
