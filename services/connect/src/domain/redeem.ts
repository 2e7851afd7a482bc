// POST /redeem: the key triple (hashes compared in constant time), the state checks, then issuance through
// libs/issuance with the inquiry's TTL layers and the authority version seen at sign-in. The inquiry becomes
// REDEEMED in the same statement that inserts the session, so a refusal leaves it redeemable for the retry.
import { type IssuanceDeps, issueSession } from '@svc/issuance';
import { type Clock, ServiceError } from '@svc/platform';
import type { ClaimView } from '@svc/token-core';
import { CONNECT_AUTH_METHOD } from './establish';
import { matchesHash, sha256Hex } from './keys';
import type { InquiryRow, InquiryStore } from './ports';

export interface RedeemDeps {
  inquiries: InquiryStore;
  issuance: IssuanceDeps;
  clock: Clock;
}

export interface RedeemResult {
  claims: ClaimView;
  applicationAnchor: string;
  refreshToken: string;
  accessToken: string;
}

const notFound = () => new ServiceError('InquiryNotFound');

/** Finds the inquiry the first two keys name; any mismatch is the same InquiryNotFound. */
export async function findByKeyPair(
  inquiries: InquiryStore,
  exposureKey: string,
  hiddenKey: string,
): Promise<InquiryRow> {
  const inquiry = await inquiries.byExposureHash(sha256Hex(exposureKey));
  if (!matchesHash(hiddenKey, inquiry?.hiddenKeyHash) || !inquiry) throw notFound();
  return inquiry;
}

function checkRedeemable(inquiry: InquiryRow, confirmationKey: string, now: Date): void {
  if (inquiry.state === 'REDEEMED') throw new ServiceError('InquiryAlreadyRedeemed');
  if (inquiry.expiresAt <= now) throw new ServiceError('InquiryExpired');
  if (inquiry.state === 'ESTABLISHED') throw new ServiceError('InquiryNotRealized');
  if (!matchesHash(confirmationKey, inquiry.confirmationKeyHash)) throw notFound();
}

/** Why issuance wrote nothing for a still-realized-looking inquiry: what its row says now. */
async function lostRedemption(deps: RedeemDeps, inquiryId: string, err: unknown): Promise<unknown> {
  const current = await deps.inquiries.byId(inquiryId);
  if (current?.state === 'REDEEMED') return new ServiceError('InquiryAlreadyRedeemed');
  if (!current || current.expiresAt.getTime() <= deps.clock()) return new ServiceError('InquiryExpired');
  return err;
}

export async function redeemInquiry(
  deps: RedeemDeps,
  keys: { exposureKey: string; hiddenKey: string; confirmationKey: string },
): Promise<RedeemResult> {
  const inquiry = await findByKeyPair(deps.inquiries, keys.exposureKey, keys.hiddenKey);
  const now = new Date(deps.clock());
  checkRedeemable(inquiry, keys.confirmationKey, now);
  if (!inquiry.accountId || inquiry.authorityVersion === null)
    throw new ServiceError('AuthenticationNotFound');
  try {
    const application = await deps.issuance.ports.applications.loadApplication({ id: inquiry.applicationId });
    if (!application) throw new ServiceError('ApplicationNotFound');
    const issued = await issueSession(deps.issuance, {
      application,
      principal: { kind: 'ACCOUNT', accountId: inquiry.accountId },
      authMethod: inquiry.authMethod ?? CONNECT_AUTH_METHOD,
      ttlLayers: inquiry.constraints.ttlLayers,
      authTime: inquiry.authTime ?? undefined,
      expectedAuthorityVersion: inquiry.authorityVersion,
      redeemsInquiry: { id: inquiry.id },
    });
    return {
      claims: issued.claims,
      applicationAnchor: application.anchor,
      refreshToken: issued.refreshToken,
      accessToken: issued.accessToken,
    };
  } catch (err) {
    // Nothing was written. The one write issuance refuses (AuthorizationArtifactStale) is also what a redeem that
    // lost to a concurrent one, or outlived the inquiry, sees: the row tells which.
    if (err instanceof ServiceError && err.reason === 'AuthorizationArtifactStale')
      throw await lostRedemption(deps, inquiry.id, err);
    throw err;
  }
}
