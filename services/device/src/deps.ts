// What the device host needs: the issuance core every issuing host opens, its configuration, and its two stores
// (device authorizations in PostgreSQL, their polling state in Redis). Tests build the same with `deviceDepsOf`.

import { createDeviceGrantStores, type DeviceGrantStores } from '@svc/device-grant';
import { type HostParts, openHostCore } from '@svc/host';
import { type Clock, createRateLimiter, type RateLimiter } from '@svc/platform';
import { createMailer, type Mailer } from '@svc/signin';
import type { DeviceConfig } from './config';

/** The core's parts, the configuration, and the device authorizations with their polling state (libs/device-grant). */
export interface DeviceDeps extends HostParts, DeviceGrantStores {
  config: DeviceConfig;
  /** Counts /device-authorize calls per client address. */
  authorizeLimit: RateLimiter;
  /** Counts polls of codes Redis does not know, per client address (they are the polls that read PostgreSQL). */
  unknownCodeLimit: RateLimiter;
  /** The approval page's mail: sign-up codes and the passkey-added notice (SMTP_* and MAIL_FROM as on connect). */
  mailer: Mailer;
}

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
    ...createDeviceGrantStores(parts.db, parts.redis, config, config.redis.commandTimeoutMs),
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
