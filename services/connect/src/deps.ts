// Everything the connect host needs, built from the environment by openConnectDeps (main) or by tests.
import { type HostParts, openHostCore } from '@svc/issuance';
import { createMailer, type Mailer } from '@svc/signin';
import { type ConnectConfig, connectConfigFromEnv } from './config';

export interface ConnectDeps extends HostParts {
  config: ConnectConfig;
  mailer: Mailer;
  now: () => Date;
  close(): Promise<void>;
}

export function openConnectDeps(env: NodeJS.ProcessEnv = process.env): ConnectDeps {
  const core = openHostCore('connect', env);
  const config = connectConfigFromEnv(env);
  const mailer = createMailer(env, config.mailFrom, core.logger);
  return {
    ...core,
    issuance: { ...core.issuance, connectUrl: config.connectUrl },
    config,
    mailer,
    now: () => new Date(),
    async close() {
      mailer.close();
      await core.close();
    },
  };
}
