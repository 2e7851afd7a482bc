// The OIDC host's configuration, read once at start-up: every issuing host's variables, the sign-in pages'
// variables, the OpenID Provider's lifetimes, the JWKS max-age rule and the Redis key prefix of its own state.
import {
  type DeviceGrantSettings,
  deviceGrantProblems,
  deviceGrantSettingsOf,
  deviceGrantVars,
} from '@svc/device-grant';
import { type IssuingHostConfig, issuingConfigOf, issuingVars } from '@svc/host';
import { ID_TOKEN_TTL_MAX_SECONDS, jwksMaxAge } from '@svc/keyring';
import { boolVar, type Env, intVar, isProduction, keyPrefixVar, oneOfVar, readConfig } from '@svc/platform';
import { type SigninSettings, type SmtpTarget, signinSettingsOf, signinVars } from '@svc/signin';

export interface OidcSettings {
  /** The OpenID Provider's issuer and public base URL (OIDC_URL): ID token `iss`, discovery, endpoints. */
  oidcUrl: string;
  /** Authorization-code lifetime (OIDC_CODE_TTL_SECONDS, default 60). */
  codeTtlSeconds: number;
  /** ID token lifetime (OIDC_ID_TOKEN_TTL_SECONDS, default 3600). */
  idTokenTtlSeconds: number;
  /** Window in which a retry of the same refresh rotation gets the pair already issued (REFRESH_RETRY_WINDOW_MS). */
  refreshRetryWindowMs: number;
  /** Idle lifetime of the person's sign-in on this host (OIDC_SIGN_IN_TTL_SECONDS, default 86400). */
  signInTtlSeconds: number;
  /** JWKS Cache-Control max-age: never longer than 300 s nor the key prepublication window. */
  jwksMaxAgeSeconds: number;
  /**
   * Redis key prefix of the host's own state (OIDC_REDIS_PREFIX, default `oidc`): parked requests
   * `<prefix>:interaction:…` and their return records `<prefix>:interaction-return:…`, sign-in sessions
   * `<prefix>:sign-in:…`, the pages' flows `<prefix>:flow:…`, and the rate limits unless RATE_LIMIT_NAMESPACE is
   * set. Replicas of one deployment share it.
   */
  redisPrefix: string;
  /**
   * The device grant (RFC 8628 on the standard wire): the device host's DEVICE_URL (its approval page is the
   * verification URI) and the settings of the device authorizations both hosts share (DEVICE_CODE_TTL_SECONDS,
   * DEVICE_POLL_INTERVAL_SECONDS, DEVICE_POLL_LEEWAY_MS, DEVICE_REDIS_PREFIX: the same values as the device host's).
   */
  deviceGrant: DeviceGrantSettings & { deviceUrl: string };
  /**
   * Dynamic client registration (RFC 7591) at POST /register: `off` (OIDC_REGISTRATION, default: no endpoint, not
   * in discovery) or `initial-access-token` (a token from `oidc-client registration-token create`).
   */
  registration: 'off' | 'initial-access-token';
  /**
   * Where a backchannel_logout_uri at POST /register may point: production's rules (https, no private address)
   * unless EVENTS_ALLOW_PRIVATE_TARGETS, as for event subscriptions and the worker's delivery.
   */
  backchannelTargets: { production: boolean; allowPrivate: boolean };
  /** POST /register per client address per 60 s (OIDC_REGISTRATION_RATE_PER_MINUTE, default 10). */
  registrationRatePerMinute: number;
}

/** The /authorize pages' settings: the shared sign-in steps (the fleet's one WEBAUTHN_RP_ID, so the same passkeys
 * as connect), cookies, lifetimes, rate limits and mail, and how long a parked authorization request may wait. */
export interface OidcPagesSettings extends Omit<SigninSettings, 'smtp'> {
  /** WEBAUTHN_RP_ID; default the OIDC_URL host name. */
  rpId?: string;
  rateLimitNamespace: string;
  /** connect's account page, linked from the passkey-added mail. */
  accountPageUrl: string;
  /** How long an authorization request may wait for the person (OIDC_INTERACTION_TTL_SECONDS, default 1800). */
  interactionTtlSeconds: number;
  /**
   * GET and POST /authorize per client address per window (OIDC_AUTHORIZE_RATE_PER_MINUTE, default 120, a window
   * of 60 s): every request parks Redis state for the interaction TTL and a return record for a day past it.
   */
  authorizeRate: { points: number; windowSeconds: number };
}

export interface OidcConfig extends IssuingHostConfig {
  oidc: OidcSettings;
  pages: OidcPagesSettings;
  smtp: SmtpTarget;
}

function oidcVars(production: boolean) {
  return {
    ...issuingVars('oidc', production),
    ...signinVars(),
    OIDC_SIGN_IN_TTL_SECONDS: intVar(86_400, { min: 1 }),
    OIDC_INTERACTION_TTL_SECONDS: intVar(1800, { min: 1 }),
    // Per client address, and an office behind one NAT shares one address: at 9 am a person makes a few
    // /authorize requests (one per application, a retry, a language switch), so 120 a minute admits dozens of
    // people signing in within the same minute, while a flood from one address parks at most 120 requests a
    // minute (each up to ~4 KB for a day). Raise it for a larger office behind one address.
    OIDC_AUTHORIZE_RATE_PER_MINUTE: intVar(120, { min: 1 }),
    OIDC_CODE_TTL_SECONDS: intVar(60, { min: 1 }),
    // At most a day (ID_TOKEN_TTL_MAX_SECONDS): one retired OIDC key covers every ID token still valid.
    OIDC_ID_TOKEN_TTL_SECONDS: intVar(3600, { min: 1, max: ID_TOKEN_TTL_MAX_SECONDS }),
    REFRESH_RETRY_WINDOW_MS: intVar(2000, { min: 0 }),
    JWKS_MAX_AGE_SECONDS: intVar(300, { min: 1 }),
    KEY_PREPUBLISH_SECONDS: intVar(86_400, { min: 1 }),
    OIDC_REDIS_PREFIX: keyPrefixVar('oidc'),
    OIDC_REGISTRATION: oneOfVar(['off', 'initial-access-token'] as const, 'off'),
    // An agent registers itself once; a flood of registrations from one address with a stolen token with many
    // uses would write a client row each.
    OIDC_REGISTRATION_RATE_PER_MINUTE: intVar(10, { min: 1 }),
    EVENTS_ALLOW_PRIVATE_TARGETS: boolVar(false),
    ...deviceGrantVars(),
  };
}

export function oidcConfigFromEnv(env: Env): OidcConfig {
  const production = isProduction(env);
  return readConfig(
    oidcVars(production),
    env,
    (v) => {
      const base = issuingConfigOf('oidc', production, v);
      const { smtp, ...shared } = signinSettingsOf(v);
      return {
        ...base,
        oidc: {
          oidcUrl: base.urls.oidc,
          codeTtlSeconds: v.OIDC_CODE_TTL_SECONDS,
          idTokenTtlSeconds: v.OIDC_ID_TOKEN_TTL_SECONDS,
          refreshRetryWindowMs: v.REFRESH_RETRY_WINDOW_MS,
          signInTtlSeconds: v.OIDC_SIGN_IN_TTL_SECONDS,
          jwksMaxAgeSeconds: jwksMaxAge(v.JWKS_MAX_AGE_SECONDS, v.KEY_PREPUBLISH_SECONDS),
          redisPrefix: v.OIDC_REDIS_PREFIX,
          deviceGrant: { ...deviceGrantSettingsOf(v), deviceUrl: base.urls.device },
          registration: v.OIDC_REGISTRATION,
          registrationRatePerMinute: v.OIDC_REGISTRATION_RATE_PER_MINUTE,
          backchannelTargets: { production, allowPrivate: v.EVENTS_ALLOW_PRIVATE_TARGETS },
        },
        pages: {
          ...shared,
          rpId: v.WEBAUTHN_RP_ID || undefined,
          rateLimitNamespace: v.RATE_LIMIT_NAMESPACE ? `${v.RATE_LIMIT_NAMESPACE}:oidc` : v.OIDC_REDIS_PREFIX,
          accountPageUrl: `${base.urls.connect}/account`,
          interactionTtlSeconds: v.OIDC_INTERACTION_TTL_SECONDS,
          authorizeRate: { points: v.OIDC_AUTHORIZE_RATE_PER_MINUTE, windowSeconds: 60 },
        },
        smtp,
      };
    },
    deviceGrantProblems,
  );
}
