// The ports the device host's domain works through: device authorizations and their polling state
// (libs/device-grant's stores), the application cache, and the Redis counters that limit polls of unknown codes and
// user-code guesses. deps.ts binds them once; the domain names no database or Redis handle.
import type { DeviceGrantSettings, DeviceGrantStores } from '@svc/device-grant';
import type { ApplicationCache, IssuanceDeps } from '@svc/issuance';
import type { Logger, Metrics, RateLimiter } from '@svc/platform';

export interface DevicePorts extends DeviceGrantStores {
  /** Applications by their public anchor (the host's cache). */
  apps: ApplicationCache;
  /** Counts /device-authorize calls per client address. */
  authorizeLimit: RateLimiter;
  /** Counts polls of codes Redis does not know, per client address (they are the polls that read PostgreSQL). */
  unknownCodeLimit: RateLimiter;
  /** The approval page's user-code entries, per client address and per signed-in account (RFC 8628 section 5.1). */
  userCodeGuesses: { perAddress: RateLimiter; perAccount: RateLimiter };
}

/** What a domain function of the device host takes: its ports, the issuance core and the values it reads. */
export interface DeviceDomain {
  ports: DevicePorts;
  issuance: IssuanceDeps;
  config: DeviceGrantSettings & { deviceUrl: string };
  logger: Logger;
  /** Where user-code entries are counted (credential_attempts_total); tests may leave it out. */
  metrics?: Metrics;
}
