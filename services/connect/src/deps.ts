// Everything the connect host needs, built from the environment by openConnectDeps (main) or by tests.
import type { Db } from '@svc/db';
import { type ApplicationCache, type IssuanceDeps, openHostCore } from '@svc/issuance';
import type { KeyRing } from '@svc/keyring';
import type { Logger, Metrics, Redis } from '@svc/platform';
import { type ConnectConfig, connectConfigFromEnv } from './config';
import { createMailer, type Mailer } from './domain/mailer';

export interface ConnectDeps {
  db: Db;
  redis: Redis;
  keyRing: KeyRing;
  issuance: IssuanceDeps;
  apps: ApplicationCache;
  config: ConnectConfig;
  mailer: Mailer;
  logger: Logger;
  metrics?: Metrics;
  now: () => Date;
  close(): Promise<void>;
}

export function openConnectDeps(env: NodeJS.ProcessEnv = process.env): ConnectDeps {
  const core = openHostCore('connect', env);
  const config = connectConfigFromEnv(env);
  const mailer = createMailer(env, config.mailFrom, core.logger);
  return {
    db: core.db,
    redis: core.redis,
    keyRing: core.keyRing,
    issuance: { ...core.issuance, connectUrl: config.connectUrl },
    apps: core.apps,
    config,
    mailer,
    logger: core.logger,
    metrics: core.metrics,
    now: () => new Date(),
    async close() {
      mailer.close();
      await core.close();
    },
  };
}
