// The OIDC host's page parts: the sign-in steps' configuration derived from the pages' settings (OidcConfig.pages,
// read once at start-up) and the issuer URL, the mailer and the browser sign-in's cookie.
import { type Logger, sessionCookie } from '@svc/platform';
import { createMailer, type Mailer, type SigninConfig, signinSiteOf } from '@svc/signin';
import type { OidcConfig, OidcPagesSettings } from './config';

export type { OidcPagesSettings } from './config';

/** True when the issuer is HTTPS: cookies then carry the `__Host-` prefix. */
export const isHttps = (oidcUrl: string) => new URL(oidcUrl).protocol === 'https:';

/** The browser's sign-in on this host: cookie `oidc_session`, `__Host-oidc_session` over HTTPS (HttpOnly, SameSite=Lax, Path=/). */
export const signInCookie = (https: boolean) => sessionCookie('oidc_session', https);

/** The sign-in steps' configuration for a host served at `oidcUrl`. */
export function signinConfig(settings: OidcPagesSettings, oidcUrl: string): SigninConfig {
  return {
    ...signinSiteOf(oidcUrl, 'oidc_flow', settings.rpId ?? ''),
    rpName: settings.rpName,
    emailCodeTtlSeconds: settings.emailCodeTtlSeconds,
    flowTtlSeconds: settings.flowTtlSeconds,
    rateLimitNamespace: settings.rateLimitNamespace,
    rateLimits: settings.rateLimits,
    accountPageUrl: settings.accountPageUrl,
  };
}

/** What the /authorize pages add to the host's dependencies (their parked requests are a port: deps.ts). */
export interface OidcPageParts {
  settings: OidcPagesSettings;
  mailer: Mailer;
}

export function openOidcPageParts(logger: Logger, config: OidcConfig): OidcPageParts {
  // A copy: tests adjust their host's settings without touching the configuration object.
  const settings = { ...config.pages };
  return {
    settings,
    mailer: createMailer(config.smtp, settings.mailFrom, logger, config.devMailboxUrl),
  };
}
