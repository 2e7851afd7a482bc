// POST /errand: for a current access token whose session is active, the live five-key claim view and a fresh
// errand when the claim gate owes the user a browser step (null when nothing is owed).
import {
  ACCESS_TYPS,
  createErrand,
  type ErrandRef,
  isIssuable,
  profileValues,
  sessionAuthorityMoved,
  verifyPresentedToken,
} from '@svc/issuance';
import { ServiceError } from '@svc/platform';
import {
  buildClaimView,
  type ClaimView,
  evaluateClaimGate,
  TokenVerificationError,
  TYP,
} from '@svc/token-core';
import type { NativeDomain } from './ports';

// The spec's /errand failures carry no reason beyond the status: the reason table answers them with empty bodies
// on /errand (ENDPOINT_ANSWERS).
const unauthorized = (cause?: unknown) => new ServiceError('AccessTokenInvalid', { cause });
const forbidden = (reason: 'ApplicationNotActive' | 'AccountDisabled') => new ServiceError(reason);

export async function errandForAccessToken(
  { ports, issuance }: NativeDomain,
  accessToken: string,
): Promise<{ claims: ClaimView; errand: ErrandRef | null }> {
  let presented: Awaited<ReturnType<typeof verifyPresentedToken>>;
  try {
    presented = await verifyPresentedToken(issuance, ports.apps, accessToken, { typ: ACCESS_TYPS });
  } catch (err) {
    if (err instanceof TokenVerificationError) throw unauthorized(err);
    throw err;
  }
  const { app, typ, claims: token } = presented;
  const session = await ports.sessions.find(token.sid);
  // A workload token is current only on its own workload session, for the actor it names, while the workload,
  // its generation, its pairwise actor subject and its source credential stay authoritative (as introspection).
  const isWorkloadToken = typ === TYP.workloadAccess;
  if (
    !session ||
    session.applicationId !== app.id ||
    session.status !== 'ACTIVE' ||
    session.expiresAt <= new Date(issuance.clock()) ||
    isWorkloadToken !== (session.workloadId !== null) ||
    (isWorkloadToken && token.act?.sub !== session.actorSubject) ||
    !session.workloadOk
  ) {
    throw unauthorized();
  }
  if (!isIssuable(app)) throw forbidden('ApplicationNotActive');
  const account = await issuance.ports.accounts.loadAccount(session.accountId);
  if (!account) throw unauthorized();
  if (account.status !== 'ACTIVE') throw forbidden('AccountDisabled');
  // The account's authority moved since the session was issued (a passkey removed, an identifier reset, a status
  // change and back): ended, as /introspect (revoked), /userinfo (401) and its refresh (stale) say.
  if (sessionAuthorityMoved(session.authorityVersion, account)) throw unauthorized();
  const claims = buildClaimView(
    app.claimRequirements,
    await issuance.ports.accounts.loadGrants(account.id, app.id),
  );
  const gate = evaluateClaimGate(claims, profileValues(account));
  const errand = gate
    ? await createErrand(issuance, {
        applicationId: app.id,
        accountId: account.id,
        purpose: 'CLAIMS',
        claims: gate.claims,
      })
    : null;
  return { claims, errand };
}
