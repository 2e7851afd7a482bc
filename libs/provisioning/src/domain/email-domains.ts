// Operator actions behind the email-domain policy (CONTRACTS "Email-domain policy"): set a domain's policy, and
// link an account to the SSO authority that governs it. Issuance and refresh read both on their next request.

import { changed } from '@svc/audit';
import type { EmailDomainPolicyKind } from '@svc/issuance';
import { ProvisioningError } from '../errors';
import type { Uses } from './ports';

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * An exact email domain as stored: lowercase, at least two dot-separated DNS labels (ASCII; internationalized
 * names in their xn-- form), at most 253 characters. Undefined when it is not one.
 */
export function normalizeEmailDomain(raw: string): string | undefined {
  const domain = raw.trim().toLowerCase();
  if (domain.length > 253) return undefined;
  const labels = domain.split('.');
  return labels.length >= 2 && labels.every((l) => LABEL.test(l)) ? domain : undefined;
}

/** An SSO authority name: 1 to 200 visible characters, compared exactly. */
export const SSO_AUTHORITY = /^[\x21-\x7e]{1,200}$/;

export async function setEmailDomainPolicy(
  ports: Uses<'changes'>,
  input: { domain: string; policy: EmailDomainPolicyKind; ssoAuthority?: string },
) {
  const domain = normalizeEmailDomain(input.domain);
  if (!domain) throw new ProvisioningError('--domain must be an exact email domain such as example.com');
  if (input.policy === 'REQUIRE_SSO' && !input.ssoAuthority)
    throw new ProvisioningError('--policy REQUIRE_SSO needs --sso-authority NAME');
  if (input.policy !== 'REQUIRE_SSO' && input.ssoAuthority)
    throw new ProvisioningError('--sso-authority applies to --policy REQUIRE_SSO only');
  if (input.ssoAuthority && !SSO_AUTHORITY.test(input.ssoAuthority))
    throw new ProvisioningError('--sso-authority must be 1 to 200 visible characters without spaces');
  return ports.changes.run(async (tx, audit) => {
    await tx.principals.putEmailDomainPolicy(domain, {
      policy: input.policy,
      ssoAuthority: input.ssoAuthority ?? null,
    });
    audit.record({
      action: 'email_domain.set_policy',
      target: { type: 'email_domain', id: domain },
      changes: {
        policy: changed(null, input.policy),
        ssoAuthority: changed(null, input.ssoAuthority ?? null),
      },
    });
    return { domain, policy: input.policy };
  });
}

export async function linkSsoAuthority(ports: Uses<'changes'>, accountId: string, authority: string) {
  if (!SSO_AUTHORITY.test(authority))
    throw new ProvisioningError('--authority must be 1 to 200 visible characters without spaces');
  return ports.changes.run(async (tx, audit) => {
    if (!(await tx.principals.setSsoAuthority(accountId, authority)))
      throw new ProvisioningError('account not found');
    audit.record({
      action: 'account.link_sso',
      target: { type: 'account', id: accountId },
      changes: { ssoAuthority: changed(null, authority) },
    });
    return { id: accountId, ssoAuthority: authority };
  });
}
