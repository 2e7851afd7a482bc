// `pnpm start:worker`: the background-job process. Connects to PostgreSQL and Redis, registers the repeatable
// schedules, runs jobs, serves Prometheus metrics on METRICS_PORT, and drains active jobs on SIGTERM/SIGINT.
import { createPrisma } from '@svc/db';
import {
  buildVersion,
  createLogger,
  createMetrics,
  createRedis,
  serveMetrics,
  startTelemetry,
  systemClock,
} from '@svc/platform';
import { kekFromBytes } from '@svc/token-core';
import type { Telemetry } from 'bullmq';
import { workerConfigFromEnv } from './config';
import { registerWorkerGauges, workerMetrics } from './metrics';
import { createJobWorker } from './worker';

/** BullMQ's OpenTelemetry adapter, required only when tracing is on. */
function bullmqTelemetry(): Telemetry {
  const { BullMQOtel } = require('bullmq-otel') as typeof import('bullmq-otel');
  return new BullMQOtel({ tracerName: 'worker' });
}

async function main(): Promise<void> {
  const config = workerConfigFromEnv(process.env);
  // Before any connection: spans for PostgreSQL, Redis and each job (BullMQ's own telemetry, the trace of the
  // code that added a job carried inside it). Nothing is loaded when no OTLP endpoint is configured.
  const telemetry = startTelemetry('worker', config.otlpEndpoint);
  const logger = createLogger('worker', { level: config.logLevel });
  const db = createPrisma(config.databaseUrl, config.db);
  const redis = createRedis(config.redisTarget, { logger, bounds: config.redis });
  const metrics = workerMetrics(createMetrics('worker'));
  const metricsServer =
    config.metricsPort === undefined
      ? undefined
      : serveMetrics(metrics.base, config.metricsPort, config.metricsBindHost);
  const kek = kekFromBytes(config.kekBytes, config.previousKekBytes);
  // The process's one clock: the ticks, the sweep and the gauges all read it.
  const clock = systemClock;
  const jobs = createJobWorker(
    {
      db,
      kek,
      redis,
      redisTarget: config.redisTarget,
      logger,
      metrics,
      clock,
      telemetry: telemetry ? bullmqTelemetry() : undefined,
    },
    config,
  );
  registerWorkerGauges(metrics.base, { queue: jobs.queue, db, clock });
  await jobs.schedule();
  logger.info(
    {
      queue: config.queueName,
      rotationCheckMs: config.rotationCheckMs,
      sweepEveryMs: config.sweepEveryMs,
      version: buildVersion(),
    },
    'worker started',
  );

  let closing: Promise<void> | undefined;
  const shutdown = (signal: string) => {
    closing ??= (async () => {
      logger.info({ signal }, 'shutting down: draining active jobs');
      await jobs.close();
      const steps: (() => Promise<unknown>)[] = [
        () => new Promise<void>((r) => (metricsServer ? metricsServer.close(() => r()) : r())),
        () => redis.quit(),
        () => db.$disconnect(),
        async () => telemetry?.shutdown(),
      ];
      for (const step of steps)
        await step().catch((err: unknown) => logger.error({ err }, 'error during shutdown'));
      logger.info('worker stopped');
    })();
    return closing;
  };
  // A repeated signal (systemd signals the whole unit) joins the shutdown under way instead of ending the process.
  for (const sig of ['SIGTERM', 'SIGINT'] as const) {
    process.on(sig, () => {
      if (closing) return;
      void shutdown(sig).then(() => process.exit(0));
    });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`worker failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
