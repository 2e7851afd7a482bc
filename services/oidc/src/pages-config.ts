// The OIDC host's page parts: the sign-in steps' configuration derived from the pages' settings (OidcConfig.pages,
// read once at start-up) and the issuer URL, the mailer and the parked authorization requests.
import type { Clock, Logger, Redis } from '@svc/platform';
import { createMailer, type Mailer, type SigninConfig, signinSiteOf } from '@svc/signin';
import type { OidcConfig, OidcPagesSettings } from './config';
import { createInteractionStore, type InteractionStore } from './store/interactions';

export type { OidcPagesSettings } from './config';

/** True when the issuer is HTTPS: cookies then carry the `__Host-` prefix. */
export const isHttps = (oidcUrl: string) => new URL(oidcUrl).protocol === 'https:';

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

/** What the /authorize pages add to the host's dependencies. */
export interface OidcPageParts {
  settings: OidcPagesSettings;
  mailer: Mailer;
  interactions: InteractionStore;
}

export function openOidcPageParts(
  redis: Redis,
  logger: Logger,
  config: OidcConfig,
  clock: Clock,
): OidcPageParts {
  // A copy: tests adjust their host's settings without touching the configuration object.
  const settings = { ...config.pages };
  return {
    settings,
    mailer: createMailer(config.smtp, settings.mailFrom, logger, config.devMailboxUrl),
    interactions: createInteractionStore(redis, {
      redisPrefix: config.oidc.redisPrefix,
      ttlSeconds: settings.interactionTtlSeconds,
      clock,
    }),
  };
}
