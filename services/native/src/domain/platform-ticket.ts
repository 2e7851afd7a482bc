// Direct issue with a game-platform ticket: the application's PLATFORM_TICKET rule must allow-list the platform
// app id, the ticket is single use across replicas, Steam verifies it, the Steam user is linked to one account
// (created on first sign-in), its standing (status, email-domain policy) checked before the basic terms are settled,
// then the shared issuance core issues.
import { createHash } from 'node:crypto';
import { checkAccount, checkApplication, checkEmailDomain, issueFromRead } from '@svc/issuance';
import { ServiceError } from '@svc/platform';
import { type AgreementAcceptance, settleBasicTerms } from './basic-terms';
import { type DirectIssueResult, requireApplication } from './issue';
import { checkPlatformLayer1, PLATFORM_TICKET_METHOD } from './layers';
import type { NativeDomain } from './ports';

export const STEAM_PLATFORM = 'STEAM';

export interface PlatformTicketInput {
  applicationAnchor: string;
  platformTicketHex: string;
  /** int64, exact. */
  platformAppId: bigint;
  agreementAcceptance?: AgreementAcceptance;
}

/** The replay set's key of a ticket: the SHA-256 of its normalized (lowercase) hex. */
export function ticketHash(normalizedHex: string): string {
  return createHash('sha256').update(normalizedHex).digest('hex');
}

export async function platformTicketSignIn(
  d: NativeDomain,
  input: PlatformTicketInput,
): Promise<DirectIssueResult> {
  const { ports, issuance } = d;
  const app = await requireApplication(d, input.applicationAnchor);
  checkApplication(app);
  checkPlatformLayer1(app, input.platformAppId);

  // Hex is case-insensitive: normalize before hashing so case variants of one ticket are the same ticket.
  const ticket = input.platformTicketHex.toLowerCase();
  const hash = ticketHash(ticket);
  if (!(await ports.replay.claim(hash))) throw new ServiceError('ReplayProtectionAlreadySeen');

  const verdict = await ports.steam.authenticateUserTicket(input.platformAppId, ticket);
  if (verdict.kind === 'unavailable') {
    await ports.replay.release(hash);
    throw new ServiceError('TemporarilyUnavailable', { headers: { 'Retry-After': '5' } });
  }
  if (verdict.kind === 'rejected' || verdict.publisherBanned)
    throw new ServiceError('PlatformTicketRejected');

  const link = await ports.links.findOrCreate(STEAM_PLATFORM, verdict.steamId);
  // One read: status, email-domain standing, the receipt and the authority version the session's insert is
  // conditional on. The terms are read afresh (not the hot paths' cache): an acceptance names an exact revision.
  const terms = await issuance.ports.agreements.currentTerms();
  const read = await issuance.ports.issuanceReads.readForIssue(
    { accountId: link.accountId, applicationId: app.id, sectorId: app.sectorId },
    terms,
  );
  const account = read.snapshot.account;
  checkAccount(account);
  checkEmailDomain(read.snapshot.emailDomain);
  const settled = await settleBasicTerms(issuance, account.id, read, input.agreementAcceptance);
  const issued = await issueFromRead(
    issuance,
    {
      application: app,
      principal: { kind: 'ACCOUNT', accountId: account.id },
      authMethod: PLATFORM_TICKET_METHOD,
    },
    settled,
  );
  return {
    claims: issued.claims,
    applicationAnchor: app.anchor,
    accessToken: issued.accessToken,
    refreshToken: issued.refreshToken,
  };
}
