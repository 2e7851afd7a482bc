// What the native host needs (database, Redis, key ring, issuance core, limits) and the one `ports` object its domain
// works through (credentials, platform links, sessions, the ticket and assertion replay sets, the Steam Web API),
// bound here once over the opened connections; tests build the same with `nativeDepsOf` over their own parts.
import { createReplaySet } from '@svc/client-auth';
import { type HostParts, openHostCore } from '@svc/host';
import { createCredentialReadsStore, createSessionStatesStore } from '@svc/issuance/stores';
import { type Clock, createRateLimiter } from '@svc/platform';
import type { NativeConfig } from './config';
import type { CredentialLimits, NativePorts } from './domain/ports';
import { createPlatformLinkStore } from './store/platform-links';
import { createSteamClient } from './store/steam-api';
import { createTicketReplayStore } from './store/ticket-replay';

export type { NativeConfig } from './config';
export { nativeConfigFromEnv } from './config';

export interface NativeDeps extends HostParts {
  config: NativeConfig;
  ports: NativePorts;
}

function limitsFor(parts: HostParts, config: NativeConfig, endpoint: string): CredentialLimits {
  const rl = config.rateLimit;
  return {
    address: createRateLimiter(parts.redis, {
      perAddress: true,
      keyPrefix: `${rl.prefix}:${endpoint}:addr`,
      points: rl.addressPoints,
      durationSeconds: rl.windowSeconds,
    }),
    credential: createRateLimiter(parts.redis, {
      perAddress: false,
      keyPrefix: `${rl.prefix}:${endpoint}:cred`,
      points: rl.credentialPoints,
      durationSeconds: rl.windowSeconds,
    }),
  };
}

/** The native host's ports (stores, limits, the Steam client) over the core's connections. */
export function nativeDepsOf(parts: HostParts, config: NativeConfig): NativeDeps {
  const ports: NativePorts = {
    apps: parts.apps,
    credentials: createCredentialReadsStore(parts.db),
    links: createPlatformLinkStore(parts.db),
    sessions: createSessionStatesStore(parts.db),
    replay: createTicketReplayStore(parts.redis, parts.claims, config.ticketReplayTtlSeconds),
    assertionReplay: createReplaySet(parts.claims),
    steam: createSteamClient({
      baseUrl: config.steamApiUrl,
      apiKey: config.steamApiKey,
      identity: config.steamIdentity,
      timeoutMs: config.steamTimeoutMs,
      logger: parts.logger,
    }),
    limits: {
      accessKey: limitsFor(parts, config, 'access-key'),
      publicKey: limitsFor(parts, config, 'public-key'),
    },
  };
  return { ...parts, config, ports };
}

/** Opens the core connections; close() releases them all. */
export function openNativeDeps(config: NativeConfig, clock: Clock): NativeDeps & { close(): Promise<void> } {
  const core = openHostCore(config, clock);
  // A warning in production, where it is a missing setting; a local run without one is the usual case, so start-up
  // stays quiet there (an info line still says it).
  if (!config.steamApiKey)
    core.logger[config.production ? 'warn' : 'info'](
      'STEAM_API_KEY is not set: platform-ticket sign-in will be refused by Steam',
    );
  return { ...nativeDepsOf(core, config), close: core.close };
}
