// The OIDC host's page parts: the sign-in steps' configuration derived from the pages' settings (OidcConfig.pages,
// read once at start-up) and the issuer URL, the mailer, the sign-in steps bound to this host, and the browser
// sign-in's cookie.
import { type Logger, sessionCookie } from '@svc/platform';
import {
  createMailer,
  createSignin,
  type Mailer,
  type Signin,
  type SigninConfig,
  type SigninDeps,
  signinSiteOf,
} from '@svc/signin';
import type { OidcConfig, OidcPagesSettings } from './config';
import { OIDC_MESSAGES, type OidcKey } from './pages/i18n-oidc';
import { OIDC_PAGE_STATUSES } from './pages/page-statuses';

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
  // A copy: the limits and sign-in steps bound from it are fixed once the host's dependencies are open.
  const settings = { ...config.pages };
  return {
    settings,
    mailer: createMailer(config.smtp, settings.mailFrom, logger, config.devMailboxUrl),
  };
}

/**
 * The shared sign-in steps bound to the OIDC host: flow cookie oidc_flow, namespace oidc, flows under
 * OIDC_REDIS_PREFIX, receipts OIDC_BROWSER, its strings and page statuses.
 */
export function oidcSignin(
  deps: Omit<SigninDeps, 'mailer'>,
  pages: OidcPageParts,
  oidc: Pick<OidcConfig['oidc'], 'oidcUrl' | 'redisPrefix'>,
): Signin<OidcKey> {
  const { mailer, settings } = pages;
  return createSignin({
    deps: { ...deps, mailer },
    config: signinConfig(settings, oidc.oidcUrl),
    namespace: 'oidc',
    redisPrefix: oidc.redisPrefix,
    receiptChannel: 'OIDC_BROWSER',
    messages: OIDC_MESSAGES,
    pageStatuses: OIDC_PAGE_STATUSES,
    // A page view without a flow writes one (~260 bytes for FLOW_TTL_SECONDS); any number of views of one parked
    // request would otherwise write without bound. A browser starts about one per /authorize at most (its flow
    // cookie lasts the flow's lifetime), so the /authorize limit's rate bounds it, on a counter of its own.
    newFlowRate: settings.authorizeRate,
  });
}
