// The email-domain policy (CONTRACTS "Email-domain policy"): an account whose email domain is BLOCKed, or is
// REQUIRE_SSO and not linked to that domain's SSO authority, is refused at every issuance and refresh. Exact
// domain, case-insensitive, no subdomain inheritance. The rule reads values; the snapshot statement reads them.
import type { Db } from '@svc/db';
import { ServiceError } from '@svc/platform';

export const EMAIL_DOMAIN_POLICIES = ['ALLOW', 'BLOCK', 'REQUIRE_SSO'] as const;
export type EmailDomainPolicyKind = (typeof EMAIL_DOMAIN_POLICIES)[number];

/** What the rule needs about an account whose domain has a policy other than ALLOW. */
export interface EmailDomainStanding {
  policy: 'BLOCK' | 'REQUIRE_SSO';
  /** The authority a REQUIRE_SSO domain names. */
  requiredAuthority: string | null;
  /** The authority the account is linked to (`account link-sso`), if any. */
  accountAuthority: string | null;
}

/** The domain of an address: the lowercase text after its last `@` (undefined without one). */
export function emailDomainOf(email: string | null | undefined): string | undefined {
  const at = email?.lastIndexOf('@') ?? -1;
  return at < 0 ? undefined : email!.slice(at + 1).toLowerCase();
}

/**
 * Select-list items over an `accounts a` in scope: the account's SSO link, and `[policy, authority]` of its email
 * domain's policy when that is not ALLOW (one primary-key probe; null when there is none). The domain expression
 * is `emailDomainOf` in SQL.
 */
export const EMAIL_DOMAIN_COLUMNS_SQL = `a.sso_authority,
    (SELECT ARRAY[p.policy::text, p.sso_authority] FROM email_domain_policies p
      WHERE p.domain = lower(split_part(a.email, '@', -1)) AND a.email LIKE '%@%' AND p.policy <> 'ALLOW')
      AS email_domain_policy`;

/** The columns of `EMAIL_DOMAIN_COLUMNS_SQL`. */
export interface EmailDomainColumns {
  sso_authority: string | null;
  email_domain_policy: (string | null)[] | null;
}

export function toEmailDomainStanding(row: EmailDomainColumns): EmailDomainStanding | null {
  const [policy, requiredAuthority] = row.email_domain_policy ?? [];
  if (policy !== 'BLOCK' && policy !== 'REQUIRE_SSO') return null;
  return { policy, requiredAuthority: requiredAuthority ?? null, accountAuthority: row.sso_authority };
}

/** The rule: EmailDomainBlocked, EmailDomainRequiresSso or SsoAuthorityConflict (403), or nothing. */
export function checkEmailDomain(standing: EmailDomainStanding | null): void {
  if (!standing) return;
  if (standing.policy === 'BLOCK') throw new ServiceError('EmailDomainBlocked', 403);
  if (standing.accountAuthority === null) throw new ServiceError('EmailDomainRequiresSso', 403);
  if (standing.accountAuthority !== standing.requiredAuthority)
    throw new ServiceError('SsoAuthorityConflict', 403);
}

/** The policy of an address's domain (ALLOW when it has none): sign-up on the pages refuses a BLOCKed domain. */
export async function emailDomainPolicyOf(db: Db, email: string): Promise<EmailDomainPolicyKind> {
  const domain = emailDomainOf(email);
  if (!domain) return 'ALLOW';
  const row = await db.emailDomainPolicy.findUnique({ where: { domain }, select: { policy: true } });
  return row?.policy ?? 'ALLOW';
}
