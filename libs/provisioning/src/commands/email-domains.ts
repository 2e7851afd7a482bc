// Commands for the email-domain policy: a domain's policy (ALLOW, BLOCK, REQUIRE_SSO) and an account's SSO link.
import { EMAIL_DOMAIN_POLICIES } from '@svc/issuance';
import { linkSsoAuthority, normalizeEmailDomain, SSO_AUTHORITY, setEmailDomainPolicy } from '../index';
import { UsageError } from './flags';
import { defineCommand } from './registry';

const AUTHORITY_RULE = '1 to 200 visible characters without spaces';

export const emailDomainCommands = [
  defineCommand({
    name: 'email-domain set',
    synopsis: `--domain D --policy ${EMAIL_DOMAIN_POLICIES.join('|')} [--sso-authority NAME]   (exact domain; REQUIRE_SSO names its authority)`,
    http: { method: 'POST', path: '/v1/email-domains/:domain/set' },
    flags: { domain: {}, policy: {}, 'sso-authority': {} },
    parse: (f) => {
      const domain = normalizeEmailDomain(f.required('domain'));
      if (!domain) throw new UsageError('--domain must be an exact email domain such as example.com');
      const policy = f.oneOf('policy', EMAIL_DOMAIN_POLICIES, { required: true });
      const ssoAuthority = f.matching('sso-authority', SSO_AUTHORITY, AUTHORITY_RULE);
      if (policy === 'REQUIRE_SSO' && !ssoAuthority)
        throw new UsageError('--policy REQUIRE_SSO needs --sso-authority NAME');
      if (policy !== 'REQUIRE_SSO' && ssoAuthority)
        throw new UsageError('--sso-authority applies to --policy REQUIRE_SSO only');
      return { domain, policy, ssoAuthority };
    },
    run: (ctx, i) => setEmailDomainPolicy(ctx.provisioning(), i),
  }),
  defineCommand({
    name: 'account link-sso',
    synopsis: '--account ID --authority NAME   (the SSO authority that governs the account)',
    http: { method: 'POST', path: '/v1/accounts/:account/link-sso' },
    flags: { account: {}, authority: {} },
    parse: (f) => ({
      account: f.id('account', { required: true }),
      authority: f.matching('authority', SSO_AUTHORITY, AUTHORITY_RULE, { required: true }),
    }),
    run: (ctx, i) => linkSsoAuthority(ctx.provisioning(), i.account, i.authority),
  }),
];
