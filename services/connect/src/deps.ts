// Everything the connect host needs, built from the environment by openConnectDeps (main) or by tests.
import { createPrisma, type Db } from '@svc/db';
import {
  type ApplicationCache,
  createApplicationCache,
  type IssuanceDeps,
  issuanceDepsFromEnv,
} from '@svc/issuance';
import { createKeyRing, type KeyRing } from '@svc/keyring';
import {
  createLogger,
  createMetrics,
  createRedis,
  type Logger,
  type Metrics,
  type Redis,
} from '@svc/platform';
import { loadKek } from '@svc/token-core';
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
  const db = createPrisma();
  const redis = createRedis(undefined, { autoPipelining: true });
  const subscriber = createRedis();
  const kek = loadKek(env);
  const keyRing = createKeyRing({ db, kek, subscriber });
  const config = connectConfigFromEnv(env);
  const issuance = { ...issuanceDepsFromEnv(db, keyRing, kek), connectUrl: config.connectUrl };
  const logger = createLogger('connect');
  const mailer = createMailer(env, config.mailFrom, logger);
  return {
    db,
    redis,
    keyRing,
    issuance,
    apps: createApplicationCache(db),
    config,
    mailer,
    logger,
    metrics: createMetrics('connect'),
    now: () => new Date(),
    async close() {
      mailer.close();
      await keyRing.close();
      await subscriber.quit().catch(() => undefined);
      await redis.quit().catch(() => undefined);
      await db.$disconnect();
    },
  };
}
