// The connect host's configuration, read once at start-up: every issuing host's variables plus its public URL,
// WebAuthn relying party, mail, lifetimes, rate limits and the Redis key prefix of its own state.
import { type IssuingHostConfig, issuingConfigOf, issuingVars } from '@svc/host';
import { type Env, intVar, isProduction, keyPrefixVar, readConfig, textVar } from '@svc/platform';
import {
  type SigninConfig,
  type SigninSettings,
  signinSettingsOf,
  signinSiteOf,
  signinVars,
} from '@svc/signin';

/**
 * The sign-in steps' configuration (connect is the account page the others link to, so it has no link of its own;
 * its WebAuthn origin is WEBAUTHN_ORIGIN, else CONNECT_URL's), the shared settings, and connect's own lifetimes.
 */
export interface ConnectConfig
  extends IssuingHostConfig,
    Omit<SigninConfig, 'accountPageUrl'>,
    SigninSettings {
  /** Public base URL of this host (CONNECT_URL), without a trailing slash. */
  connectUrl: string;
  /** Lifetime of an inquiry from /establish to /redeem (INQUIRY_TTL_SECONDS, default 600). */
  inquiryTtlSeconds: number;
  /**
   * How long after a passkey sign-in the account page lets the person add or remove a passkey
   * (ACCOUNT_REAUTH_SECONDS, default 300); later, a passkey confirmation (step-up) comes first.
   */
  accountReauthSeconds: number;
  /**
   * Flows (and account page sessions) started per client address per window (CONNECT_NEW_FLOW_RATE_PER_MINUTE,
   * default 120, a window of 60 s): every page view by a browser without one writes one to Redis for
   * FLOW_TTL_SECONDS.
   */
  newFlowRate: { points: number; windowSeconds: number };
  /**
   * Redis key prefix of connect's own state (CONNECT_REDIS_PREFIX, default `connect`): sign-in flows
   * `<prefix>:flow:…`, account page sessions `<prefix>:account:…`, and the rate limits unless RATE_LIMIT_NAMESPACE
   * names theirs. Replicas of one deployment share it.
   */
  redisPrefix: string;
}

function connectVars(production: boolean) {
  return {
    ...issuingVars('connect', production),
    ...signinVars(),
    WEBAUTHN_ORIGIN: textVar(''),
    INQUIRY_TTL_SECONDS: intVar(600, { min: 1 }),
    ACCOUNT_REAUTH_SECONDS: intVar(300, { min: 1, max: 3600 }),
    // Per client address, and an office behind one NAT shares one address: a browser starts one flow per page it
    // first opens (its cookie then lasts the flow's lifetime), so 120 a minute admits dozens of people within the
    // same minute, while a loop of cookieless views writes at most 120 flows a minute (~260 B each, 30 min).
    CONNECT_NEW_FLOW_RATE_PER_MINUTE: intVar(120, { min: 1 }),
    CONNECT_REDIS_PREFIX: keyPrefixVar('connect'),
  };
}

export function connectConfigFromEnv(env: Env): ConnectConfig {
  const production = isProduction(env);
  return readConfig(connectVars(production), env, (v) => {
    const base = issuingConfigOf('connect', production, v);
    const connectUrl = base.urls.connect;
    const site = signinSiteOf(connectUrl, 'connect_flow', v.WEBAUTHN_RP_ID);
    return {
      ...base,
      ...signinSettingsOf(v),
      ...site,
      connectUrl,
      origin: v.WEBAUTHN_ORIGIN || site.origin,
      inquiryTtlSeconds: v.INQUIRY_TTL_SECONDS,
      accountReauthSeconds: v.ACCOUNT_REAUTH_SECONDS,
      newFlowRate: { points: v.CONNECT_NEW_FLOW_RATE_PER_MINUTE, windowSeconds: 60 },
      redisPrefix: v.CONNECT_REDIS_PREFIX,
      rateLimitNamespace: v.RATE_LIMIT_NAMESPACE || v.CONNECT_REDIS_PREFIX,
    };
  });
}
