// What the native host needs (database, Redis, key ring, issuance core, Steam client, limits), read from the
// environment by openNativeDeps; tests build the same structure with their own limits and stand-ins.
import { type HostParts, openHostCore } from '@svc/issuance';

export interface NativeConfig {
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

export interface NativeDeps extends HostParts {
  config: NativeConfig;
}

function num(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 1): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer >= ${min}`);
  return n;
}

export function nativeConfigFromEnv(env: NodeJS.ProcessEnv = process.env): NativeConfig {
  return {
    steamApiUrl: (env.STEAM_API_URL ?? 'https://partner.steam-api.com').replace(/\/+$/, ''),
    steamApiKey: env.STEAM_API_KEY ?? '',
    steamTimeoutMs: num(env, 'STEAM_API_TIMEOUT_MS', 3000),
    steamIdentity: 'service',
    ticketReplayTtlSeconds: num(env, 'PLATFORM_TICKET_REPLAY_TTL_SECONDS', 86_400),
    rateLimit: {
      prefix: env.NATIVE_RATE_PREFIX ?? 'native',
      addressPoints: num(env, 'NATIVE_RATE_ADDRESS_POINTS', 300),
      credentialPoints: num(env, 'NATIVE_RATE_CREDENTIAL_POINTS', 60),
      windowSeconds: num(env, 'NATIVE_RATE_WINDOW_SECONDS', 60),
    },
    bodyLimitBytes: num(env, 'NATIVE_BODY_LIMIT_BYTES', 16 * 1024),
  };
}

/** Opens every connection the host needs from the environment; close() releases them all. */
export async function openNativeDeps(): Promise<NativeDeps & { close(): Promise<void> }> {
  const config = nativeConfigFromEnv();
  const core = openHostCore('native');
  if (!config.steamApiKey)
    core.logger.warn('STEAM_API_KEY is not set: platform-ticket sign-in will be refused by Steam');
  return { ...core, config };
}
