// Store of accounts: an account's profile and standing, its claim grants per application, and the policy of an
// email domain (sign-up refuses a BLOCKed one).
import type { Db } from '@svc/db';
import { type ClaimGrants, isClaimKey } from '@svc/token-core';
import type { AccountProfile } from '../claim-state';
import { type EmailDomainPolicyKind, emailDomainOf } from '../email-domain';

export async function loadAccount(db: Db, accountId: string): Promise<AccountProfile | null> {
  return db.account.findUnique({
    where: { id: accountId },
    select: {
      id: true,
      status: true,
      email: true,
      emailVerified: true,
      givenName: true,
      familyName: true,
      picture: true,
      pictureAnimated: true,
      authorityVersion: true,
    },
  });
}

export async function loadGrants(db: Db, accountId: string, applicationId: string): Promise<ClaimGrants> {
  const rows = await db.claimGrant.findMany({ where: { accountId, applicationId } });
  const grants: ClaimGrants = {};
  for (const r of rows) if (isClaimKey(r.claim)) grants[r.claim] = r.state;
  return grants;
}

/** The policy of an address's domain (ALLOW when it has none): sign-up on the pages refuses a BLOCKed domain. */
export async function emailDomainPolicyOf(db: Db, email: string): Promise<EmailDomainPolicyKind> {
  const domain = emailDomainOf(email);
  if (!domain) return 'ALLOW';
  const row = await db.emailDomainPolicy.findUnique({ where: { domain }, select: { policy: true } });
  return row?.policy ?? 'ALLOW';
}
