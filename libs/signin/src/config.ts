// The variables every host with sign-in pages reads (connect, device, oidc): the WebAuthn relying party, the
// lifetimes of codes and flows, the rate limits of the shared steps, and outbound mail. A host's schema spreads
// signinVars and reads them through signinSettingsOf; signinSiteOf derives what follows from the host's URL.
import {
  intVar,
  isLoopbackHost,
  keyPrefixVar,
  oneOfVar,
  sessionCookie,
  textVar,
  urlVar,
  type VarValues,
} from '@svc/platform';
import type { SigninConfig } from './site';

/** The SMTP relay: a URL (smtp://user:pass@host:port), or host, port and credentials. */
export type SmtpTarget =
  | string
  | { host: string; port: number; secure: boolean; auth: { user: string; pass: string } | undefined };

export function signinVars() {
  return {
    /** Default: the host name of the host's own URL. */
    WEBAUTHN_RP_ID: textVar(''),
    WEBAUTHN_RP_NAME: textVar('Sign-in service'),
    EMAIL_CODE_TTL_SECONDS: intVar(600, { min: 1 }),
    // The shortest wait between two codes to one address (the code page's "Send a new code").
    EMAIL_CODE_RESEND_SECONDS: intVar(30, { min: 1, max: 3600 }),
    FLOW_TTL_SECONDS: intVar(1800, { min: 1 }),
    // A key prefix like the hosts' own (no glob characters), so `rl:<namespace>:*` holds exactly its limits.
    RATE_LIMIT_NAMESPACE: keyPrefixVar(''),
    RL_CODE_SEND_PER_IP: intVar(20, { min: 1 }),
    RL_CODE_SEND_PER_RECIPIENT: intVar(5, { min: 1 }),
    RL_CODE_VERIFY_PER_IP: intVar(30, { min: 1 }),
    RL_SIGN_IN_PER_IP: intVar(60, { min: 1 }),
    MAIL_FROM: textVar('Sign-in service <no-reply@localhost>'),
    SMTP_URL: urlVar('', ['smtp:', 'smtps:']),
    SMTP_HOST: textVar('127.0.0.1'),
    SMTP_PORT: intVar(25, { min: 1, max: 65_535 }),
    SMTP_SECURE: oneOfVar(['true', 'false'], 'false'),
    SMTP_USER: textVar(''),
    SMTP_PASS: textVar(''),
  };
}
export type SigninVars = VarValues<ReturnType<typeof signinVars>>;

/** What every sign-in host reads alike from these variables (the parts derived from its own URL aside). */
export interface SigninSettings
  extends Pick<SigninConfig, 'rpName' | 'emailCodeTtlSeconds' | 'flowTtlSeconds' | 'rateLimits'> {
  mailFrom: string;
  /** The SMTP relay: SMTP_URL (smtp://user:pass@host:port), else SMTP_HOST + SMTP_PORT (+ SMTP_USER, SMTP_PASS, SMTP_SECURE). */
  smtp: SmtpTarget;
}

export function signinSettingsOf(v: SigninVars): SigninSettings {
  return {
    rpName: v.WEBAUTHN_RP_NAME,
    emailCodeTtlSeconds: v.EMAIL_CODE_TTL_SECONDS,
    flowTtlSeconds: v.FLOW_TTL_SECONDS,
    // The rate limits of the shared sign-in steps (RL_*).
    rateLimits: {
      codeSendPerIp: v.RL_CODE_SEND_PER_IP,
      codeSendPerRecipient: v.RL_CODE_SEND_PER_RECIPIENT,
      codeVerifyPerIp: v.RL_CODE_VERIFY_PER_IP,
      signInPerIp: v.RL_SIGN_IN_PER_IP,
      codeResendSeconds: v.EMAIL_CODE_RESEND_SECONDS,
    },
    mailFrom: v.MAIL_FROM,
    smtp: smtpTargetOf(v),
  };
}

export type SigninSite = Pick<SigninConfig, 'rpId' | 'origin' | 'secureCookies' | 'flowCookieName'>;

/**
 * The parts of a sign-in host's configuration that follow from its public URL: the WebAuthn relying party id
 * (WEBAUTHN_RP_ID, else the URL's host name) and origin, whether cookies carry Secure (not on loopback HTTP), and
 * the flow cookie's name (`__Host-<flowCookie>` over HTTPS).
 */
export function signinSiteOf(hostUrl: string, flowCookie: string, rpId: string): SigninSite {
  const url = new URL(hostUrl);
  return {
    rpId: rpId || url.hostname,
    origin: url.origin,
    secureCookies: !(url.protocol === 'http:' && isLoopbackHost(url.hostname)),
    flowCookieName: sessionCookie(flowCookie, url.protocol === 'https:').name,
  };
}

/** SMTP_URL when set, else SMTP_HOST + SMTP_PORT (+ SMTP_USER, SMTP_PASS, SMTP_SECURE). */
function smtpTargetOf(v: SigninVars): SmtpTarget {
  if (v.SMTP_URL) return v.SMTP_URL;
  return {
    host: v.SMTP_HOST,
    port: v.SMTP_PORT,
    secure: v.SMTP_SECURE === 'true',
    auth: v.SMTP_USER ? { user: v.SMTP_USER, pass: v.SMTP_PASS } : undefined,
  };
}
