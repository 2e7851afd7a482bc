// The approval page's configuration: the shared sign-in steps' settings (one WebAuthn relying party id for the
// fleet, this host's origin, the flow cookie, lifetimes and limits, mail, connect's account page for the passkey
// notice) and the user-code guess limits of RFC 8628 section 5.1.
import { intVar, type VarValues } from '@svc/platform';
import {
  type SigninConfig,
  type SigninSettings,
  type SigninVars,
  signinSettingsOf,
  signinSiteOf,
  signinVars,
} from '@svc/signin';

export interface DevicePagesConfig extends SigninConfig, SigninSettings {
  /** Typed user codes (right, wrong or malformed) per client address and per signed-in account, per window. */
  codeGuesses: { perAddress: number; perAccount: number; windowSeconds: number };
  /**
   * Flows started per client address per window (DEVICE_NEW_FLOW_RATE_PER_MINUTE, default 120, a window of 60 s):
   * every view of /device by a browser without a flow writes one to Redis for FLOW_TTL_SECONDS.
   */
  newFlowRate: { points: number; windowSeconds: number };
}

/** The page's variables: the shared sign-in ones plus the user-code guess limits. */
export function devicePagesVars() {
  return {
    ...signinVars(),
    DEVICE_RL_USER_CODE_PER_ADDRESS: intVar(20, { min: 1 }),
    DEVICE_RL_USER_CODE_PER_ACCOUNT: intVar(10, { min: 1 }),
    DEVICE_RL_USER_CODE_WINDOW_SECONDS: intVar(600, { min: 1 }),
    // Per client address, and an office behind one NAT shares one address: a browser starts one flow when it first
    // opens /device (its cookie then lasts the flow's lifetime), so 120 a minute admits dozens of people within the
    // same minute, while a loop of cookieless views writes at most 120 flows a minute (~260 B each, 30 min).
    DEVICE_NEW_FLOW_RATE_PER_MINUTE: intVar(120, { min: 1 }),
  };
}

export function devicePagesConfigOf(
  v: SigninVars & VarValues<ReturnType<typeof devicePagesVars>>,
  urls: { device: string; connect: string },
  redisPrefix: string,
): DevicePagesConfig {
  return {
    ...signinSettingsOf(v),
    ...signinSiteOf(urls.device, 'device_flow', v.WEBAUTHN_RP_ID),
    rateLimitNamespace: v.RATE_LIMIT_NAMESPACE || `${redisPrefix}:pages`,
    accountPageUrl: `${urls.connect}/account`,
    codeGuesses: {
      perAddress: v.DEVICE_RL_USER_CODE_PER_ADDRESS,
      perAccount: v.DEVICE_RL_USER_CODE_PER_ACCOUNT,
      windowSeconds: v.DEVICE_RL_USER_CODE_WINDOW_SECONDS,
    },
    newFlowRate: { points: v.DEVICE_NEW_FLOW_RATE_PER_MINUTE, windowSeconds: 60 },
  };
}
