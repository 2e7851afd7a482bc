// Connect host configuration read from the environment: public URL, WebAuthn relying party, mail, lifetimes.
import { envInt, hostUrl, sessionCookie } from '@svc/platform';

export interface ConnectConfig {
  /** Public base URL of this host (CONNECT_URL), without a trailing slash. */
  connectUrl: string;
  /** WebAuthn relying party id (WEBAUTHN_RP_ID, default the CONNECT_URL host name). */
  rpId: string;
  /** Origin browsers report in WebAuthn client data (derived from CONNECT_URL). */
  origin: string;
  rpName: string;
  /** Lifetime of an inquiry from /establish to /redeem (INQUIRY_TTL_SECONDS, default 600). */
  inquiryTtlSeconds: number;
  /** Lifetime of an emailed sign-up code (EMAIL_CODE_TTL_SECONDS, default 600). */
  emailCodeTtlSeconds: number;
  /** Idle lifetime of a browser flow (FLOW_TTL_SECONDS, default 1800). */
  flowTtlSeconds: number;
  /** Cookies carry Secure unless the host is served over loopback HTTP. */
  secureCookies: boolean;
  /** Name of the flow cookie: `__Host-connect_flow` when CONNECT_URL is HTTPS, `connect_flow` on loopback HTTP. */
  flowCookieName: string;
  mailFrom: string;
  /** Redis key namespace of the rate limits (RATE_LIMIT_NAMESPACE), so separate deployments do not share counters. */
  rateLimitNamespace: string;
  rateLimits: {
    /** Codes sent per client address and per recipient in 10 minutes. */
    codeSendPerIp: number;
    codeSendPerRecipient: number;
    /** Code guesses per client address in 10 minutes (each code also dies after 5 wrong guesses). */
    codeVerifyPerIp: number;
    /** Passkey ceremonies per client address in 5 minutes. */
    signInPerIp: number;
  };
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK.has(hostname.toLowerCase());
}

export function connectConfigFromEnv(env: NodeJS.ProcessEnv = process.env): ConnectConfig {
  const connectUrl = hostUrl('connect', env);
  const url = new URL(connectUrl);
  return {
    connectUrl,
    rpId: env.WEBAUTHN_RP_ID ?? url.hostname,
    origin: env.WEBAUTHN_ORIGIN ?? url.origin,
    rpName: env.WEBAUTHN_RP_NAME ?? 'Sign-in service',
    inquiryTtlSeconds: envInt('INQUIRY_TTL_SECONDS', 600, env),
    emailCodeTtlSeconds: envInt('EMAIL_CODE_TTL_SECONDS', 600, env),
    flowTtlSeconds: envInt('FLOW_TTL_SECONDS', 1800, env),
    secureCookies: !(url.protocol === 'http:' && isLoopbackHost(url.hostname)),
    flowCookieName: sessionCookie('connect_flow', url.protocol === 'https:').name,
    mailFrom: env.MAIL_FROM ?? 'Sign-in service <no-reply@localhost>',
    rateLimitNamespace: env.RATE_LIMIT_NAMESPACE ?? 'connect',
    rateLimits: {
      codeSendPerIp: envInt('RL_CODE_SEND_PER_IP', 20, env),
      codeSendPerRecipient: envInt('RL_CODE_SEND_PER_RECIPIENT', 5, env),
      codeVerifyPerIp: envInt('RL_CODE_VERIFY_PER_IP', 30, env),
      signInPerIp: envInt('RL_SIGN_IN_PER_IP', 60, env),
    },
  };
}
