// Store of accounts: an account's profile and standing, its claim grants per application, the policy of an email
// domain (sign-up refuses a BLOCKed one), and the authority a held sign-in compares against.
import type { Db } from '@svc/db';
import { type ClaimGrants, isClaimKey } from '@svc/token-core';
import type { AccountProfile } from '../domain/claim-state';
import { type EmailDomainPolicyKind, emailDomainOf } from '../domain/email-domain';
import type { HeldAuthority } from '../domain/held-authority';
import type { AccountsPort } from '../domain/ports';

async function loadAccount(db: Db, accountId: string): Promise<AccountProfile | null> {
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

async function loadGrants(db: Db, accountId: string, applicationId: string): Promise<ClaimGrants> {
  const rows = await db.claimGrant.findMany({ where: { accountId, applicationId } });
  const grants: ClaimGrants = {};
  for (const r of rows) if (isClaimKey(r.claim)) grants[r.claim] = r.state;
  return grants;
}

/** The policy of an address's domain (ALLOW when it has none): sign-up on the pages refuses a BLOCKed domain. */
async function emailDomainPolicyOf(db: Db, email: string): Promise<EmailDomainPolicyKind> {
  const domain = emailDomainOf(email);
  if (!domain) return 'ALLOW';
  const row = await db.emailDomainPolicy.findUnique({ where: { domain }, select: { policy: true } });
  return row?.policy ?? 'ALLOW';
}

/** The account's current authority, one primary-key read; undefined when the account is gone. */
async function currentAuthority(db: Db, accountId: string): Promise<HeldAuthority | undefined> {
  const row = await db.account.findUnique({
    where: { id: accountId },
    select: { authorityVersion: true, subjectResets: true },
  });
  return row ? { version: row.authorityVersion, resets: row.subjectResets } : undefined;
}

export function createAccountsStore(db: Db): AccountsPort {
  return {
    loadAccount: (accountId) => loadAccount(db, accountId),
    loadGrants: (accountId, applicationId) => loadGrants(db, accountId, applicationId),
    emailDomainPolicyOf: (email) => emailDomainPolicyOf(db, email),
    currentAuthority: (accountId) => currentAuthority(db, accountId),
  };
}
