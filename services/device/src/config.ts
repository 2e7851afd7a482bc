// Device host configuration read once from the environment: its public URL (the verification URIs), the lifetimes
// and polling interval of device authorizations, and the /device-authorize rate limit.
import { envInt, envPositiveInt, hostUrl } from '@svc/platform';

export interface DeviceConfig {
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
  /** Redis key prefix of polling state and rate limits (DEVICE_REDIS_PREFIX); replicas of a deployment share it. */
  redisPrefix: string;
  rateLimit: {
    /** /device-authorize calls per client address per window (DEVICE_RATE_AUTHORIZE_PER_ADDRESS, default 30). */
    authorizePerAddress: number;
    /** Window length in seconds (DEVICE_RATE_WINDOW_SECONDS, default 60). */
    windowSeconds: number;
  };
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

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
  if (url.protocol === 'http:' && LOOPBACK.has(url.hostname.toLowerCase())) return undefined;
  return 'is neither HTTPS nor loopback HTTP';
}

function leewayOf(env: NodeJS.ProcessEnv): number {
  const ms = envInt('DEVICE_POLL_LEEWAY_MS', 250, env);
  if (!Number.isInteger(ms) || ms < 0) throw new Error('DEVICE_POLL_LEEWAY_MS must be a whole number >= 0');
  return ms;
}

export function deviceConfigFromEnv(env: NodeJS.ProcessEnv = process.env): DeviceConfig {
  const deviceUrl = hostUrl('device', env);
  const problem = verificationBaseProblem(deviceUrl);
  if (problem) throw new Error(`DEVICE_URL ${problem}`);
  return {
    deviceUrl,
    codeTtlSeconds: envPositiveInt('DEVICE_CODE_TTL_SECONDS', 600, env),
    pollIntervalSeconds: envPositiveInt('DEVICE_POLL_INTERVAL_SECONDS', 5, env),
    pollLeewayMs: leewayOf(env),
    redisPrefix: env.DEVICE_REDIS_PREFIX ?? 'device',
    rateLimit: {
      authorizePerAddress: envPositiveInt('DEVICE_RATE_AUTHORIZE_PER_ADDRESS', 30, env),
      windowSeconds: envPositiveInt('DEVICE_RATE_WINDOW_SECONDS', 60, env),
    },
  };
}
