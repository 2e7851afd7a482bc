// What the device host needs: the issuance core every issuing host opens, its configuration, and its two stores
// (device authorizations in PostgreSQL, their polling state in Redis). Tests build the same with `deviceDepsOf`.
import { type HostParts, openHostCore } from '@svc/host';
import { type Clock, createRateLimiter, type RateLimiter } from '@svc/platform';
import { createMailer, type Mailer } from '@svc/signin';
import type { DeviceConfig } from './config';
import { type AuthorizationStore, createAuthorizationStore } from './store/authorizations';
import { createPollingStore, type PollingStore } from './store/polling';

export interface DeviceDeps extends HostParts {
  config: DeviceConfig;
  authorizations: AuthorizationStore;
  polling: PollingStore;
  /** Counts /device-authorize calls per client address. */
  authorizeLimit: RateLimiter;
  /** Counts polls of codes Redis does not know, per client address (they are the polls that read PostgreSQL). */
  unknownCodeLimit: RateLimiter;
  /** The approval page's mail: sign-up codes and the passkey-added notice (SMTP_* and MAIL_FROM as on connect). */
  mailer: Mailer;
}

/** RFC 8628 section 3.5: each slow_down raises the interval by 5 seconds. */
export const SLOW_DOWN_STEP_SECONDS = 5;
/** A slow_down never raises the interval past this (a burst of retries cannot push a device past its lifetime). */
export const SLOW_DOWN_CAP_SECONDS = 60;
/** Polling state outlives its authorization by this, so late polls answer expired_token from Redis alone. */
const KEEP_AFTER_EXPIRY_MS = 10 * 60_000;

/** The device host's own parts over the core's connections; the mailer is the configured SMTP relay's. */
export function deviceDepsOf(
  parts: HostParts,
  config: DeviceConfig,
  mailer: Mailer = createMailer(config.pages.smtp, config.pages.mailFrom, parts.logger, config.devMailboxUrl),
): DeviceDeps {
  return {
    ...parts,
    config,
    mailer,
    authorizations: createAuthorizationStore(parts.db),
    polling: createPollingStore(parts.redis, {
      prefix: config.redisPrefix,
      leewayMs: config.pollLeewayMs,
      stepSeconds: SLOW_DOWN_STEP_SECONDS,
      capSeconds: SLOW_DOWN_CAP_SECONDS,
      keepAfterExpiryMs: KEEP_AFTER_EXPIRY_MS,
      commandTimeoutMs: config.redis.commandTimeoutMs,
    }),
    authorizeLimit: createRateLimiter(parts.redis, {
      perAddress: true,
      keyPrefix: `${config.redisPrefix}:authorize`,
      points: config.rateLimit.authorizePerAddress,
      durationSeconds: config.rateLimit.windowSeconds,
    }),
    unknownCodeLimit: createRateLimiter(parts.redis, {
      perAddress: true,
      keyPrefix: `${config.redisPrefix}:unknown`,
      points: config.rateLimit.unknownPerAddress,
      durationSeconds: config.rateLimit.windowSeconds,
    }),
  };
}

/** Opens the core connections from the parsed configuration, then the device host's stores over them. */
export function openDeviceDeps(config: DeviceConfig, clock: Clock): DeviceDeps & { close(): Promise<void> } {
  const core = openHostCore(config, clock);
  const deps = deviceDepsOf(core, config);
  return {
    ...deps,
    metrics: core.metrics,
    async close() {
      deps.mailer.close();
      await core.close();
    },
  };
}
