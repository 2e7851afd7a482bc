// The device host's configuration, read once at start-up: every issuing host's variables plus its public URL (the
// verification URIs), the lifetimes and polling interval of device authorizations, and the /device-authorize rate
// limit.
import { type IssuingHostConfig, issuingConfigOf, issuingVars } from '@svc/host';
import { type Env, intVar, isLoopbackHost, isProduction, keyPrefixVar, readConfig } from '@svc/platform';
import { type DevicePagesConfig, devicePagesConfigOf, devicePagesVars } from './pages/config';

export interface DeviceConfig extends IssuingHostConfig {
  /** Public base URL of this host (DEVICE_URL), without a trailing slash; the verification URIs live under it. */
  deviceUrl: string;
  /** Seconds from /device-authorize until the authorization expires (DEVICE_CODE_TTL_SECONDS, default 600). */
  codeTtlSeconds: number;
  /** The polling interval /device-authorize answers (DEVICE_POLL_INTERVAL_SECONDS, default 5). */
  pollIntervalSeconds: number;
  /**
   * How much sooner than the interval a poll may arrive and still count as on time (DEVICE_POLL_LEEWAY_MS, default
   * 250): a client that sends every `interval` seconds sees its requests arrive with network jitter.
   */
  pollLeewayMs: number;
  /**
   * Redis key prefix of the host's own state (DEVICE_REDIS_PREFIX, default `device`): polling state, rate limits
   * and the approval page's sign-in flows (`<prefix>:flow:…`); replicas of a deployment share it.
   */
  redisPrefix: string;
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

/**
 * Why a base URL cannot carry verification URIs (spec, /device-authorize): absolute HTTPS, HTTP only on loopback,
 * no credentials, no query or fragment, no whitespace or control characters. Undefined when it can.
 */
export function verificationBaseProblem(raw: string): string | undefined {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused
  if (/[\u0000-\u0020\u007f-\u009f]/.test(raw)) return 'contains whitespace or control characters';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'is not an absolute URL';
  }
  if (url.username || url.password) return 'carries credentials';
  if (url.search || url.hash || raw.includes('?') || raw.includes('#')) return 'carries a query or fragment';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return undefined;
  return 'is neither HTTPS nor loopback HTTP';
}

function deviceVars(production: boolean) {
  return {
    ...issuingVars('device', production),
    ...devicePagesVars(),
    DEVICE_CODE_TTL_SECONDS: intVar(600, { min: 1 }),
    DEVICE_POLL_INTERVAL_SECONDS: intVar(5, { min: 1 }),
    DEVICE_POLL_LEEWAY_MS: intVar(250),
    DEVICE_REDIS_PREFIX: keyPrefixVar('device'),
    DEVICE_RATE_AUTHORIZE_PER_ADDRESS: intVar(30, { min: 1 }),
    DEVICE_RATE_UNKNOWN_PER_ADDRESS: intVar(60, { min: 1 }),
    DEVICE_RATE_WINDOW_SECONDS: intVar(60, { min: 1 }),
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
        codeTtlSeconds: v.DEVICE_CODE_TTL_SECONDS,
        pollIntervalSeconds: v.DEVICE_POLL_INTERVAL_SECONDS,
        pollLeewayMs: v.DEVICE_POLL_LEEWAY_MS,
        redisPrefix: v.DEVICE_REDIS_PREFIX,
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
    (v) => {
      const problem = verificationBaseProblem(v.DEVICE_URL);
      return [
        ...(problem ? [{ variable: 'DEVICE_URL', problem }] : []),
        // A leeway as long as the interval would make no poll too fast: slow_down (the spec's answer to polling
        // faster than the interval) would never be given.
        ...(v.DEVICE_POLL_LEEWAY_MS >= v.DEVICE_POLL_INTERVAL_SECONDS * 1000
          ? [{ variable: 'DEVICE_POLL_LEEWAY_MS', problem: 'must be less than DEVICE_POLL_INTERVAL_SECONDS' }]
          : []),
      ];
    },
  );
}
