// The connect host's configuration, read once at start-up: every issuing host's variables plus its public URL,
// WebAuthn relying party, mail, lifetimes and rate limits.
import { type IssuingHostConfig, issuingConfigOf, issuingVars } from '@svc/host';
import { type Env, intVar, isProduction, readConfig, sessionCookie, textVar } from '@svc/platform';
import {
  type SigninConfig,
  type SmtpTarget,
  signinRateLimitsOf,
  signinVars,
  smtpTargetOf,
} from '@svc/signin';

export interface ConnectConfig extends IssuingHostConfig {
  /** Public base URL of this host (CONNECT_URL), without a trailing slash. */
  connectUrl: string;
  /** WebAuthn relying party id (WEBAUTHN_RP_ID, default the CONNECT_URL host name). */
  rpId: string;
  /** Origin browsers report in WebAuthn client data (derived from CONNECT_URL). */
  origin: string;
  rpName: string;
  /** Lifetime of an inquiry from /establish to /redeem (INQUIRY_TTL_SECONDS, default 600). */
  inquiryTtlSeconds: number;
  /**
   * How long after a passkey sign-in the account page lets the person add or remove a passkey
   * (ACCOUNT_REAUTH_SECONDS, default 300); later, a passkey confirmation (step-up) comes first.
   */
  accountReauthSeconds: number;
  /** Lifetime of an emailed sign-up code (EMAIL_CODE_TTL_SECONDS, default 600). */
  emailCodeTtlSeconds: number;
  /** Idle lifetime of a browser flow (FLOW_TTL_SECONDS, default 1800). */
  flowTtlSeconds: number;
  /** Cookies carry Secure unless the host is served over loopback HTTP. */
  secureCookies: boolean;
  /** Name of the flow cookie: `__Host-connect_flow` when CONNECT_URL is HTTPS, `connect_flow` on loopback HTTP. */
  flowCookieName: string;
  mailFrom: string;
  /** The SMTP relay: SMTP_URL (smtp://user:pass@host:port), else SMTP_HOST + SMTP_PORT (+ SMTP_USER, SMTP_PASS, SMTP_SECURE). */
  smtp: SmtpTarget;
  /** Redis key namespace of the rate limits (RATE_LIMIT_NAMESPACE), so separate deployments do not share counters. */
  rateLimitNamespace: string;
  /** The sign-in pages' limits (libs/signin's SigninConfig). */
  rateLimits: SigninConfig['rateLimits'];
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK.has(hostname.toLowerCase());
}

function connectVars(production: boolean) {
  return {
    ...issuingVars('connect', production),
    ...signinVars(),
    WEBAUTHN_ORIGIN: textVar(''),
    INQUIRY_TTL_SECONDS: intVar(600, { min: 1 }),
    ACCOUNT_REAUTH_SECONDS: intVar(300, { min: 1, max: 3600 }),
  };
}

export function connectConfigFromEnv(env: Env): ConnectConfig {
  const production = isProduction(env);
  return readConfig(connectVars(production), env, (v) => {
    const base = issuingConfigOf('connect', production, v);
    const connectUrl = base.urls.connect;
    const url = new URL(connectUrl);
    return {
      ...base,
      connectUrl,
      rpId: v.WEBAUTHN_RP_ID || url.hostname,
      origin: v.WEBAUTHN_ORIGIN || url.origin,
      rpName: v.WEBAUTHN_RP_NAME,
      inquiryTtlSeconds: v.INQUIRY_TTL_SECONDS,
      accountReauthSeconds: v.ACCOUNT_REAUTH_SECONDS,
      emailCodeTtlSeconds: v.EMAIL_CODE_TTL_SECONDS,
      flowTtlSeconds: v.FLOW_TTL_SECONDS,
      secureCookies: !(url.protocol === 'http:' && isLoopbackHost(url.hostname)),
      flowCookieName: sessionCookie('connect_flow', url.protocol === 'https:').name,
      mailFrom: v.MAIL_FROM,
      smtp: smtpTargetOf(v),
      rateLimitNamespace: v.RATE_LIMIT_NAMESPACE || 'connect',
      rateLimits: signinRateLimitsOf(v),
    };
  });
}
