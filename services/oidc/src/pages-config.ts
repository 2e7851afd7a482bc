// The OIDC host's page settings: the shared sign-in steps' WebAuthn relying party (the fleet's one
// WEBAUTHN_RP_ID, so the same passkeys as connect), cookies, lifetimes, rate limits and mail, and how long a
// parked authorization request may wait for the person. Read once from the environment; the parts that follow
// from the issuer URL are derived from it where the app is built.
import type { Logger, Redis } from '@svc/platform';
import { envInt, hostUrl, sessionCookie } from '@svc/platform';
import { createMailer, type Mailer, type SigninConfig } from '@svc/signin';
import { createInteractionStore, type InteractionStore } from './store/interactions';

export interface OidcPagesSettings {
  /** WEBAUTHN_RP_ID; default the OIDC_URL host name. */
  rpId?: string;
  rpName: string;
  emailCodeTtlSeconds: number;
  flowTtlSeconds: number;
  rateLimitNamespace: string;
  rateLimits: SigninConfig['rateLimits'];
  /** connect's account page, linked from the passkey-added mail. */
  accountPageUrl: string;
  mailFrom: string;
  /** How long an authorization request may wait for the person (OIDC_INTERACTION_TTL_SECONDS, default 1800). */
  interactionTtlSeconds: number;
}

export function oidcPagesSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): OidcPagesSettings {
  return {
    rpId: env.WEBAUTHN_RP_ID,
    rpName: env.WEBAUTHN_RP_NAME ?? 'Sign-in service',
    emailCodeTtlSeconds: envInt('EMAIL_CODE_TTL_SECONDS', 600, env),
    flowTtlSeconds: envInt('FLOW_TTL_SECONDS', 1800, env),
    rateLimitNamespace: env.RATE_LIMIT_NAMESPACE ? `${env.RATE_LIMIT_NAMESPACE}:oidc` : 'oidc',
    rateLimits: {
      codeSendPerIp: envInt('RL_CODE_SEND_PER_IP', 20, env),
      codeSendPerRecipient: envInt('RL_CODE_SEND_PER_RECIPIENT', 5, env),
      codeVerifyPerIp: envInt('RL_CODE_VERIFY_PER_IP', 30, env),
      signInPerIp: envInt('RL_SIGN_IN_PER_IP', 60, env),
    },
    accountPageUrl: `${hostUrl('connect', env)}/account`,
    mailFrom: env.MAIL_FROM ?? 'Sign-in service <no-reply@localhost>',
    interactionTtlSeconds: envInt('OIDC_INTERACTION_TTL_SECONDS', 1800, env),
  };
}

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

export function openOidcPageParts(
  redis: Redis,
  logger: Logger,
  env: NodeJS.ProcessEnv = process.env,
): OidcPageParts {
  const settings = oidcPagesSettingsFromEnv(env);
  return {
    settings,
    mailer: createMailer(env, settings.mailFrom, logger),
    interactions: createInteractionStore(redis, { ttlSeconds: settings.interactionTtlSeconds }),
  };
}
