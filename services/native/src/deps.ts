// What the native host needs (database, Redis, key ring, issuance core, Steam client, limits), opened from its
// parsed configuration by openNativeDeps; tests build the same structure with their own limits and stand-ins.
import { type HostParts, openHostCore } from '@svc/host';
import type { Clock } from '@svc/platform';
import type { NativeConfig } from './config';

export type { NativeConfig } from './config';
export { nativeConfigFromEnv } from './config';

export interface NativeDeps extends HostParts {
  config: NativeConfig;
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
  return { ...core, config };
}
