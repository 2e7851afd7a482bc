// Everything the connect host needs, opened from its parsed configuration by openConnectDeps (main) or by tests.
import { type HostParts, openHostCore } from '@svc/host';
import type { Clock } from '@svc/platform';
import { createMailer, type Mailer } from '@svc/signin';
import type { ConnectConfig } from './config';

export interface ConnectDeps extends HostParts {
  config: ConnectConfig;
  mailer: Mailer;
  /** The one clock of the host (ms since the epoch); tests pass a settable one. */
  clock: Clock;
  close(): Promise<void>;
}

/** Opens the core connections, then the mailer. */
export function openConnectDeps(config: ConnectConfig, clock: Clock): ConnectDeps {
  const core = openHostCore(config, clock);
  const mailer = createMailer(config.smtp, config.mailFrom, core.logger, config.devMailboxUrl);
  return {
    ...core,
    config,
    mailer,
    clock,
    async close() {
      mailer.close();
      await core.close();
    },
  };
}
