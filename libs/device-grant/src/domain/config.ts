// The settings of device authorizations that the device host and the OIDC host read alike (one user-code space,
// one polling state: both must agree on lifetimes, interval, leeway and the Redis prefix of the polling state), and
// the rules between them.
import {
  type AbsoluteUrlProblem,
  absoluteUrlOf,
  intVar,
  isHttpsOrLoopback,
  keyPrefixVar,
} from '@svc/platform';

/** RFC 8628 section 3.5: each slow_down raises the interval by 5 seconds. */
export const SLOW_DOWN_STEP_SECONDS = 5;
/** A slow_down never raises the interval past this (a burst of retries cannot push a device past its lifetime). */
export const SLOW_DOWN_CAP_SECONDS = 60;
/** Polling state outlives its authorization by this, so late polls answer expired_token from Redis alone. */
export const KEEP_AFTER_EXPIRY_MS = 10 * 60_000;
/** The approval page's path on the device host; verificationUriComplete adds `?user_code=`. */
export const VERIFICATION_PATH = '/device';

export interface DeviceGrantSettings {
  /** Seconds from the start until the authorization expires (DEVICE_CODE_TTL_SECONDS, default 600). */
  codeTtlSeconds: number;
  /** The polling interval answered at the start (DEVICE_POLL_INTERVAL_SECONDS, default 5). */
  pollIntervalSeconds: number;
  /** How much sooner than the interval a poll may arrive and still be on time (DEVICE_POLL_LEEWAY_MS, 250). */
  pollLeewayMs: number;
  /** Redis key prefix of the device host's state, the polling state among it (DEVICE_REDIS_PREFIX, `device`). */
  redisPrefix: string;
  /**
   * Polls per client address per window of device codes Redis does not know, on either wire
   * (DEVICE_RATE_UNKNOWN_PER_ADDRESS, default 60): only those polls read PostgreSQL, so a flood of invented codes
   * is slowed before it reaches it. Both hosts count on the same Redis counters (`<DEVICE_REDIS_PREFIX>:unknown`).
   */
  unknownPollsPerAddress: number;
  /**
   * Authorizations started per client address per window, on either wire (DEVICE_RATE_AUTHORIZE_PER_ADDRESS,
   * default 30): each start writes a PostgreSQL row. Both hosts count on the same Redis counters
   * (`<DEVICE_REDIS_PREFIX>:authorize`), so the budget is one per address across every replica of either host.
   */
  authorizePerAddress: number;
  /** The window of the device limits, in seconds (DEVICE_RATE_WINDOW_SECONDS, default 60). */
  rateWindowSeconds: number;
}

/** The variables of both hosts' schemas. */
export function deviceGrantVars() {
  return {
    DEVICE_CODE_TTL_SECONDS: intVar(600, { min: 1 }),
    DEVICE_POLL_INTERVAL_SECONDS: intVar(5, { min: 1 }),
    DEVICE_POLL_LEEWAY_MS: intVar(250),
    DEVICE_REDIS_PREFIX: keyPrefixVar('device'),
    DEVICE_RATE_UNKNOWN_PER_ADDRESS: intVar(60, { min: 1 }),
    DEVICE_RATE_AUTHORIZE_PER_ADDRESS: intVar(30, { min: 1 }),
    DEVICE_RATE_WINDOW_SECONDS: intVar(60, { min: 1 }),
  };
}

type GrantVars = {
  DEVICE_CODE_TTL_SECONDS: number;
  DEVICE_POLL_INTERVAL_SECONDS: number;
  DEVICE_POLL_LEEWAY_MS: number;
  DEVICE_REDIS_PREFIX: string;
  DEVICE_RATE_UNKNOWN_PER_ADDRESS: number;
  DEVICE_RATE_AUTHORIZE_PER_ADDRESS: number;
  DEVICE_RATE_WINDOW_SECONDS: number;
};

export function deviceGrantSettingsOf(v: GrantVars): DeviceGrantSettings {
  return {
    codeTtlSeconds: v.DEVICE_CODE_TTL_SECONDS,
    pollIntervalSeconds: v.DEVICE_POLL_INTERVAL_SECONDS,
    pollLeewayMs: v.DEVICE_POLL_LEEWAY_MS,
    redisPrefix: v.DEVICE_REDIS_PREFIX,
    unknownPollsPerAddress: v.DEVICE_RATE_UNKNOWN_PER_ADDRESS,
    authorizePerAddress: v.DEVICE_RATE_AUTHORIZE_PER_ADDRESS,
    rateWindowSeconds: v.DEVICE_RATE_WINDOW_SECONDS,
  };
}

/** The Redis key prefix of the per-address counter of polls for unknown device codes, one for both wires. */
export const unknownPollsKeyPrefix = (s: Pick<DeviceGrantSettings, 'redisPrefix'>) =>
  `${s.redisPrefix}:unknown`;

/** The Redis key prefix of the per-address counter of started authorizations, one for both wires. */
export const authorizeKeyPrefix = (s: Pick<DeviceGrantSettings, 'redisPrefix'>) =>
  `${s.redisPrefix}:authorize`;

/** The rules between the variables, as `readConfig`'s check states them (with DEVICE_URL's). */
export function deviceGrantProblems(v: GrantVars & { DEVICE_URL: string }) {
  const problem = verificationBaseProblem(v.DEVICE_URL);
  return [
    ...(problem ? [{ variable: 'DEVICE_URL', problem }] : []),
    // A leeway as long as the interval would make no poll too fast: slow_down (the spec's answer to polling
    // faster than the interval) would never be given.
    ...(v.DEVICE_POLL_LEEWAY_MS >= v.DEVICE_POLL_INTERVAL_SECONDS * 1000
      ? [{ variable: 'DEVICE_POLL_LEEWAY_MS', problem: 'must be less than DEVICE_POLL_INTERVAL_SECONDS' }]
      : []),
  ];
}

const BASE_URL_PROBLEMS: Readonly<Record<AbsoluteUrlProblem, string>> = {
  control: 'contains whitespace or control characters',
  not_absolute: 'is not an absolute URL',
  credentials: 'carries credentials',
};

/**
 * Why a base URL cannot carry verification URIs (spec, /device-authorize): absolute HTTPS, HTTP only on loopback,
 * no credentials, no query or fragment, no whitespace or control characters. Undefined when it can.
 */
export function verificationBaseProblem(raw: string): string | undefined {
  const url = absoluteUrlOf(raw);
  if (typeof url === 'string') return BASE_URL_PROBLEMS[url];
  if (url.search || url.hash || raw.includes('?') || raw.includes('#')) return 'carries a query or fragment';
  return isHttpsOrLoopback(url) ? undefined : 'is neither HTTPS nor loopback HTTP';
}

/** The approval page's URI and the same with the user code filled in. */
export function verificationUris(deviceUrl: string, userCode: string) {
  const verificationUri = `${deviceUrl}${VERIFICATION_PATH}`;
  return { verificationUri, verificationUriComplete: `${verificationUri}?user_code=${userCode}` };
}
