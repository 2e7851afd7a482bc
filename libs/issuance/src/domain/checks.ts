// The spec's issuance checks, in order, each one small step: application, account, email-domain policy, basic
// terms, claim gate.
import { ServiceError } from '@svc/platform';
import { buildClaimView, type ClaimGrants, type ClaimView, evaluateClaimGate } from '@svc/token-core';
import { type ApplicationContext, isIssuable } from './application-context';
import { type AccountProfile, profileValues } from './claim-state';
import type { IssuanceDeps } from './deps';
import { checkEmailDomain } from './email-domain';
import { createErrand } from './errands';
import type { IssuanceSnapshot } from './ports';
import { type CurrentTerms, legalAgreementRequired } from './terms';

export function checkApplication(app: ApplicationContext): void {
  if (!isIssuable(app)) throw new ServiceError('ApplicationNotActive');
}

export function checkAccount(account: AccountProfile | null | undefined): asserts account is AccountProfile {
  if (!account) throw new ServiceError('AccountNotFound');
  if (account.status === 'DELETED') throw new ServiceError('AccountDeleted');
  if (account.status === 'DISABLED') throw new ServiceError('AccountDisabled');
}

/**
 * The claim gate: returns the five-key view when issuance may go on; otherwise throws the 403 claim-gate body
 * with the view and a fresh errand the user completes in a browser.
 */
export async function checkClaimGate(
  deps: IssuanceDeps,
  app: ApplicationContext,
  account: AccountProfile,
  grants: ClaimGrants,
): Promise<ClaimView> {
  const claims = buildClaimView(app.claimRequirements, grants);
  const gate = evaluateClaimGate(claims, profileValues(account));
  if (!gate) return claims;
  const errand = await createErrand(deps, {
    applicationId: app.id,
    accountId: account.id,
    purpose: 'CLAIMS',
    claims: gate.claims,
  });
  throw new ServiceError(gate.reason, { extra: { claims, errand } });
}

/** Runs every check for an account under an application and returns the account and its claim view. */
export async function runIssuanceChecks(
  deps: IssuanceDeps,
  app: ApplicationContext,
  accountId: string,
  opts: { expectedAuthorityVersion?: number } = {},
): Promise<{ account: AccountProfile; claims: ClaimView }> {
  checkApplication(app);
  const terms = await deps.terms.current();
  const snapshot = await deps.ports.issuanceReads.loadIssuanceSnapshot(accountId, app.id, terms);
  return checkSnapshot(deps, app, snapshot, terms, opts);
}

/** The checks after the application's, over a snapshot already read (refresh reads it with the session). */
export async function checkSnapshot(
  deps: IssuanceDeps,
  app: ApplicationContext,
  snapshot: IssuanceSnapshot,
  terms: CurrentTerms | undefined,
  opts: { expectedAuthorityVersion?: number } = {},
): Promise<{ account: AccountProfile; claims: ClaimView }> {
  const account = snapshot.account;
  checkAccount(account);
  checkEmailDomain(snapshot.emailDomain);
  if (
    opts.expectedAuthorityVersion !== undefined &&
    account.authorityVersion !== opts.expectedAuthorityVersion
  ) {
    throw new ServiceError('AuthorizationArtifactStale');
  }
  if (!snapshot.hasReceipt) throw legalAgreementRequired(terms!, deps.connectUrl);
  const claims = await checkClaimGate(deps, app, account, snapshot.grants);
  return { account, claims };
}
