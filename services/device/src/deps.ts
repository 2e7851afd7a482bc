// What the device host needs: the issuance core every issuing host opens, its configuration, and the one `ports`
// object its domain works through (device authorizations in PostgreSQL, their polling state and the guess counters
// in Redis), bound here once. Tests build the same with `deviceDepsOf`.

import { authorizeKeyPrefix, createDeviceGrantStores, unknownPollsKeyPrefix } from '@svc/device-grant';
import { type HostParts, openHostCore } from '@svc/host';
import { type Clock, createRateLimiter } from '@svc/platform';
import { createMailer, createSignin, type Mailer, type Signin } from '@svc/signin';
import type { DeviceConfig } from './config';
import type { DevicePorts } from './domain/ports';
import { DEVICE_MESSAGES, type DeviceKey } from './pages/i18n-device';
import { DEVICE_PAGE_STATUSES } from './pages/page-statuses';

/** The core's parts, the configuration, and the ports of the device host's domain. */
export interface DeviceDeps extends HostParts {
  config: DeviceConfig;
  ports: DevicePorts;
  /** The approval page's mail: sign-up codes and the passkey-added notice (SMTP_* and MAIL_FROM as on connect). */
  mailer: Mailer;
  /** The shared sign-in steps bound to the approval page (its flow cookie, namespace, strings and statuses). */
  signin: Signin<DeviceKey>;
}

/** The ports over the core's connections: libs/device-grant's two stores, the application cache, the counters. */
function devicePortsOf(parts: HostParts, config: DeviceConfig): DevicePorts {
  const { pages } = config;
  const guesses = (name: string, points: number, perAddress: boolean) =>
    createRateLimiter(parts.redis, {
      keyPrefix: `${pages.rateLimitNamespace}:${name}`,
      points,
      durationSeconds: pages.codeGuesses.windowSeconds,
      perAddress,
    });
  return {
    ...createDeviceGrantStores(parts.db, parts.redis, config, config.redis.commandTimeoutMs),
    apps: parts.apps,
    authorizeLimit: createRateLimiter(parts.redis, {
      perAddress: true,
      keyPrefix: authorizeKeyPrefix(config),
      points: config.rateLimit.authorizePerAddress,
      durationSeconds: config.rateLimit.windowSeconds,
    }),
    unknownCodeLimit: createRateLimiter(parts.redis, {
      perAddress: true,
      keyPrefix: unknownPollsKeyPrefix(config),
      points: config.rateLimit.unknownPerAddress,
      durationSeconds: config.rateLimit.windowSeconds,
    }),
    userCodeGuesses: {
      perAddress: guesses('user-code-ip', pages.codeGuesses.perAddress, true),
      perAccount: guesses('user-code-account', pages.codeGuesses.perAccount, false),
    },
  };
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
    ports: devicePortsOf(parts, config),
    signin: createSignin<DeviceKey>({
      deps: { ...parts, mailer, clock: parts.issuance.clock },
      config: config.pages,
      namespace: 'device',
      redisPrefix: config.redisPrefix,
      receiptChannel: 'DEVICE_BROWSER',
      messages: DEVICE_MESSAGES,
      pageStatuses: DEVICE_PAGE_STATUSES,
      // A view without a flow writes one (~260 bytes for FLOW_TTL_SECONDS): without a count, a loop of cookieless
      // views of /device would write without bound.
      newFlowRate: config.pages.newFlowRate,
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
