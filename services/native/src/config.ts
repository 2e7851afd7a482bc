// The native host's configuration, read once at start-up: every issuing host's variables plus the Steam Web API,
// platform-ticket replay window, rate limits and body limit.
import { type IssuingHostConfig, issuingConfigOf, issuingVars } from '@svc/host';
import { type Env, intVar, isProduction, readConfig, textVar, urlVar } from '@svc/platform';

export interface NativeConfig extends IssuingHostConfig {
  /** Base URL of the Steam Web API (STEAM_API_URL). */
  steamApiUrl: string;
  /** Publisher Web API key (STEAM_API_KEY); a secret, never logged. */
  steamApiKey: string;
  /** Outbound timeout for AuthenticateUserTicket (STEAM_API_TIMEOUT_MS). */
  steamTimeoutMs: number;
  /** The fixed identity string tickets are requested for. */
  steamIdentity: string;
  /** How long a used platform ticket is remembered (PLATFORM_TICKET_REPLAY_TTL_SECONDS). */
  ticketReplayTtlSeconds: number;
  rateLimit: {
    /** Redis key prefix; replicas that share it share counters. */
    prefix: string;
    /** Attempts per client address per window, per endpoint (NATIVE_RATE_ADDRESS_POINTS). */
    addressPoints: number;
    /** Attempts per credential (access-key identifier, public-key kid) per window (NATIVE_RATE_CREDENTIAL_POINTS). */
    credentialPoints: number;
    /** Window length in seconds (NATIVE_RATE_WINDOW_SECONDS). */
    windowSeconds: number;
  };
  /** Largest accepted request body in bytes (NATIVE_BODY_LIMIT_BYTES). */
  bodyLimitBytes: number;
}

function nativeVars(production: boolean) {
  return {
    ...issuingVars('native', production),
    STEAM_API_URL: urlVar('https://partner.steam-api.com'),
    STEAM_API_KEY: textVar(''),
    STEAM_API_TIMEOUT_MS: intVar(3000, { min: 1 }),
    PLATFORM_TICKET_REPLAY_TTL_SECONDS: intVar(86_400, { min: 1 }),
    NATIVE_RATE_PREFIX: textVar('native'),
    NATIVE_RATE_ADDRESS_POINTS: intVar(300, { min: 1 }),
    NATIVE_RATE_CREDENTIAL_POINTS: intVar(60, { min: 1 }),
    NATIVE_RATE_WINDOW_SECONDS: intVar(60, { min: 1 }),
    NATIVE_BODY_LIMIT_BYTES: intVar(16 * 1024, { min: 1 }),
  };
}

export function nativeConfigFromEnv(env: Env): NativeConfig {
  const production = isProduction(env);
  return readConfig(nativeVars(production), env, (v) => ({
    ...issuingConfigOf('native', production, v),
    steamApiUrl: v.STEAM_API_URL,
    steamApiKey: v.STEAM_API_KEY,
    steamTimeoutMs: v.STEAM_API_TIMEOUT_MS,
    steamIdentity: 'service',
    ticketReplayTtlSeconds: v.PLATFORM_TICKET_REPLAY_TTL_SECONDS,
    rateLimit: {
      prefix: v.NATIVE_RATE_PREFIX,
      addressPoints: v.NATIVE_RATE_ADDRESS_POINTS,
      credentialPoints: v.NATIVE_RATE_CREDENTIAL_POINTS,
      windowSeconds: v.NATIVE_RATE_WINDOW_SECONDS,
    },
    bodyLimitBytes: v.NATIVE_BODY_LIMIT_BYTES,
  }));
}
