// The email-domain policy (CONTRACTS "Email-domain policy"): an account whose email domain is BLOCKed, or is
// REQUIRE_SSO and not linked to that domain's SSO authority, is refused at every issuance and refresh. Exact
// domain, case-insensitive, no subdomain inheritance. The rule reads values; the issuance reads (store/issuance-reads.ts) read them.
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

/** The rule: EmailDomainBlocked, EmailDomainRequiresSso or SsoAuthorityConflict (403), or nothing. */
export function checkEmailDomain(standing: EmailDomainStanding | null): void {
  if (!standing) return;
  if (standing.policy === 'BLOCK') throw new ServiceError('EmailDomainBlocked');
  if (standing.accountAuthority === null) throw new ServiceError('EmailDomainRequiresSso');
  if (standing.accountAuthority !== standing.requiredAuthority)
    throw new ServiceError('SsoAuthorityConflict');
}
