// The variables every host with sign-in pages reads (connect, oidc): the WebAuthn relying party, the lifetimes of
// codes and flows, the rate limits of the shared steps, and outbound mail. A host's schema spreads signinVars.
import { intVar, oneOfVar, textVar, urlVar, type VarValues } from '@svc/platform';

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
    FLOW_TTL_SECONDS: intVar(1800, { min: 1 }),
    RATE_LIMIT_NAMESPACE: textVar(''),
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

/** SMTP_URL when set, else SMTP_HOST + SMTP_PORT (+ SMTP_USER, SMTP_PASS, SMTP_SECURE). */
export function smtpTargetOf(v: SigninVars): SmtpTarget {
  if (v.SMTP_URL) return v.SMTP_URL;
  return {
    host: v.SMTP_HOST,
    port: v.SMTP_PORT,
    secure: v.SMTP_SECURE === 'true',
    auth: v.SMTP_USER ? { user: v.SMTP_USER, pass: v.SMTP_PASS } : undefined,
  };
}

/** The rate limits of the shared sign-in steps (RL_*). */
export function signinRateLimitsOf(v: SigninVars) {
  return {
    codeSendPerIp: v.RL_CODE_SEND_PER_IP,
    codeSendPerRecipient: v.RL_CODE_SEND_PER_RECIPIENT,
    codeVerifyPerIp: v.RL_CODE_VERIFY_PER_IP,
    signInPerIp: v.RL_SIGN_IN_PER_IP,
  };
}
