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
}

/** The page's variables: the shared sign-in ones plus the user-code guess limits. */
export function devicePagesVars() {
  return {
    ...signinVars(),
    DEVICE_RL_USER_CODE_PER_ADDRESS: intVar(20, { min: 1 }),
    DEVICE_RL_USER_CODE_PER_ACCOUNT: intVar(10, { min: 1 }),
    DEVICE_RL_USER_CODE_WINDOW_SECONDS: intVar(600, { min: 1 }),
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
  };
}
