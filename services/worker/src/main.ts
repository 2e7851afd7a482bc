// `pnpm start:worker`: the background-job process, on the hosts' lifecycle (run-host's serveBackgroundProcess):
// connects to PostgreSQL and Redis, registers the repeatable schedules, runs jobs, serves Prometheus metrics on
// METRICS_PORT, and drains active jobs on SIGTERM/SIGINT.
import { createPrisma } from '@svc/db';
import {
  closeRedis,
  createLogger,
  createMetrics,
  createRedis,
  type Logger,
  type Metrics,
  serveBackgroundProcess,
} from '@svc/platform';
import { kekFromBytes } from '@svc/token-core';
import type { Telemetry } from 'bullmq';
import { reportCommitDurability } from './commit-durability';
import { type WorkerConfig, workerConfigFromEnv } from './config';
import { createEventWorker, type EventWorker } from './event-worker';
import { registerWorkerGauges, workerMetrics } from './metrics';
import { readCommitSettings } from './store/replication-store';
import { createJobWorker, type JobWorker } from './worker';

/** BullMQ's OpenTelemetry adapter, required only when tracing is on. */
function bullmqTelemetry(): Telemetry {
  const { BullMQOtel } = require('bullmq-otel') as typeof import('bullmq-otel');
  return new BullMQOtel({ tracerName: 'worker' });
}

interface WorkerProcessDeps {
  logger: Logger;
  metrics: Metrics;
  jobs: JobWorker;
  /** The outbox drain: events to applications. */
  events: EventWorker;
  /** Says once whether PostgreSQL's commits survive a failover (commit-durability.ts); never throws. */
  reportDurability(): Promise<unknown>;
  close(): Promise<void>;
}

serveBackgroundProcess<WorkerConfig, WorkerProcessDeps>(
  {
    name: 'worker',
    config: workerConfigFromEnv,
    // Telemetry is already started (spans for PostgreSQL, Redis and each job, the trace of the code that added a
    // job carried inside it); BullMQ's own adapter is loaded only when it is on.
    open(config, clock, tracing) {
      const logger = createLogger('worker', { level: config.logLevel });
      const db = createPrisma(config.databaseUrl, config.db);
      const redis = createRedis(config.redisTarget, { logger, bounds: config.redis });
      const metrics = workerMetrics(createMetrics('worker'));
      const kek = kekFromBytes(config.kekBytes, config.previousKekBytes);
      const events = createEventWorker({
        db,
        kek,
        databaseUrl: config.databaseUrl,
        config: config.events,
        production: config.production,
        keyCacheTtlMs: config.keySchedule.keyCacheTtlMs,
        clock,
        logger,
        metrics,
      });
      const jobs = createJobWorker(
        {
          db,
          kek,
          redis,
          redisTarget: config.redisTarget,
          logger,
          metrics,
          // The process's one clock: the ticks, the sweep and the gauges all read it.
          clock,
          telemetry: tracing ? bullmqTelemetry() : undefined,
        },
        config,
      );
      registerWorkerGauges(metrics.base, { queue: jobs.queue, db, clock, outbox: events.outbox });
      return {
        logger,
        metrics: metrics.base,
        jobs,
        events,
        reportDurability: () => reportCommitDurability(() => readCommitSettings(db), logger),
        async close() {
          // Each connection is closed even when the one before failed to close.
          for (const step of [() => closeRedis(redis), () => db.$disconnect()]) {
            await step().catch((err: unknown) => logger.error({ err }, 'error during shutdown'));
          }
        },
      };
    },
    async start(deps, config) {
      // Events first: the outbox is in PostgreSQL, so they are delivered even while Redis (BullMQ) is away.
      deps.events.start();
      await deps.jobs.schedule();
      // Before the start line, so it is among the start-up lines (one query; bounded by the connect timeout).
      await deps.reportDurability();
      return {
        fields: {
          queue: config.queueName,
          rotationCheckMs: config.rotationCheckMs,
          sweepEveryMs: config.sweepEveryMs,
        },
        drain: async () => {
          await deps.events.close();
          await deps.jobs.close();
        },
      };
    },
  },
  process.env,
);
