// The device host's configuration, read once at start-up: every issuing host's variables plus its public URL (the
// verification URIs), the lifetimes and polling interval of device authorizations, and the /device-authorize rate
// limit.

import {
  type DeviceGrantSettings,
  deviceGrantProblems,
  deviceGrantSettingsOf,
  deviceGrantVars,
} from '@svc/device-grant';
import { type IssuingHostConfig, issuingConfigOf, issuingVars } from '@svc/host';
import { type Env, isProduction, readConfig } from '@svc/platform';
import { type DevicePagesConfig, devicePagesConfigOf, devicePagesVars } from './pages/config';

export interface DeviceConfig extends IssuingHostConfig, DeviceGrantSettings {
  /** Public base URL of this host (DEVICE_URL), without a trailing slash; the verification URIs live under it. */
  deviceUrl: string;
  rateLimit: {
    /** /device-authorize calls per client address per window (DEVICE_RATE_AUTHORIZE_PER_ADDRESS, default 30). */
    authorizePerAddress: number;
    /**
     * Polls per client address per window of device codes Redis does not know (DEVICE_RATE_UNKNOWN_PER_ADDRESS,
     * default 60): only those polls read PostgreSQL, so a flood of invented codes is slowed before it reaches it.
     */
    unknownPerAddress: number;
    /** Window length in seconds (DEVICE_RATE_WINDOW_SECONDS, default 60). */
    windowSeconds: number;
  };
  /** The approval page: sign-in settings (WebAuthn, cookie, lifetimes, limits, mail) and user-code guess limits. */
  pages: DevicePagesConfig;
}

function deviceVars(production: boolean) {
  return {
    ...issuingVars('device', production),
    ...devicePagesVars(),
    ...deviceGrantVars(),
  };
}

export function deviceConfigFromEnv(env: Env): DeviceConfig {
  const production = isProduction(env);
  return readConfig(
    deviceVars(production),
    env,
    (v) => {
      const base = issuingConfigOf('device', production, v);
      return {
        ...base,
        deviceUrl: v.DEVICE_URL,
        ...deviceGrantSettingsOf(v),
        rateLimit: {
          authorizePerAddress: v.DEVICE_RATE_AUTHORIZE_PER_ADDRESS,
          unknownPerAddress: v.DEVICE_RATE_UNKNOWN_PER_ADDRESS,
          windowSeconds: v.DEVICE_RATE_WINDOW_SECONDS,
        },
        pages: devicePagesConfigOf(
          v,
          { device: v.DEVICE_URL, connect: base.urls.connect },
          v.DEVICE_REDIS_PREFIX,
        ),
      };
    },
    deviceGrantProblems,
  );
}
