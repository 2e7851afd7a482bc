// The OIDC host's page parts: the sign-in steps' configuration derived from the pages' settings (OidcConfig.pages,
// read once at start-up) and the issuer URL, the mailer and the parked authorization requests.
import type { Logger, Redis } from '@svc/platform';
import { sessionCookie } from '@svc/platform';
import { createMailer, type Mailer, type SigninConfig } from '@svc/signin';
import type { OidcConfig, OidcPagesSettings } from './config';
import { createInteractionStore, type InteractionStore } from './store/interactions';

export type { OidcPagesSettings } from './config';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** True when the issuer is HTTPS: cookies then carry the `__Host-` prefix. */
export const isHttps = (oidcUrl: string) => new URL(oidcUrl).protocol === 'https:';

/** The sign-in steps' configuration for a host served at `oidcUrl`. */
export function signinConfig(settings: OidcPagesSettings, oidcUrl: string): SigninConfig {
  const url = new URL(oidcUrl);
  const https = url.protocol === 'https:';
  return {
    rpId: settings.rpId ?? url.hostname,
    origin: url.origin,
    rpName: settings.rpName,
    emailCodeTtlSeconds: settings.emailCodeTtlSeconds,
    flowTtlSeconds: settings.flowTtlSeconds,
    secureCookies: !(url.protocol === 'http:' && LOOPBACK.has(url.hostname.toLowerCase())),
    flowCookieName: sessionCookie('oidc_flow', https).name,
    rateLimitNamespace: settings.rateLimitNamespace,
    rateLimits: settings.rateLimits,
    accountPageUrl: settings.accountPageUrl,
  };
}

/** What the /authorize pages add to the host's dependencies. */
export interface OidcPageParts {
  settings: OidcPagesSettings;
  mailer: Mailer;
  interactions: InteractionStore;
}

export function openOidcPageParts(redis: Redis, logger: Logger, config: OidcConfig): OidcPageParts {
  // A copy: tests adjust their host's settings without touching the configuration object.
  const settings = { ...config.pages };
  return {
    settings,
    mailer: createMailer(config.smtp, settings.mailFrom, logger),
    interactions: createInteractionStore(redis, { ttlSeconds: settings.interactionTtlSeconds }),
  };
}
