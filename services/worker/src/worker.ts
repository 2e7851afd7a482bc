// The BullMQ side: one queue with two repeatable jobs (rotate-keys, sweep), registered idempotently with
// upsertJobScheduler by every replica, and a worker that runs them. A tick becomes exactly one job however many
// replicas run; a job whose worker dies is recovered by the stalled-job check and rerun on another replica; a
// failed job retries with exponential backoff and is logged and counted.
import type { Db } from '@svc/db';
import {
  bullPrefix,
  type Clock,
  closeRedis,
  createRedis,
  describeDependencyError,
  isDependencyFailure,
  type Logger,
  type RedisTarget,
} from '@svc/platform';
import type { Kek } from '@svc/token-core';
import { type Job, type JobsOptions, Queue, type Telemetry, UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { WorkerConfig } from './config';
import { createWorkerPorts } from './deps';
import { runRotationTick } from './jobs/rotate-keys';
import { runSweeps } from './jobs/sweeps';
import type { WorkerMetrics } from './metrics';

export const JOB_NAMES = { rotateKeys: 'rotate-keys', sweep: 'sweep' } as const;

export interface JobWorkerDeps {
  db: Db;
  kek: Kek;
  /** Regular connection for pub/sub publishes (key and session changes). */
  redis: Redis;
  /** Where BullMQ's own connections go (single server, Sentinel or Cluster: the fleet's Redis). */
  redisTarget: RedisTarget | string;
  logger: Logger;
  metrics: WorkerMetrics;
  /** The process's one clock (ms since the epoch), created at start-up; tests pass a settable one. */
  clock: Clock;
  /** Worker name stored on the jobs it processes. */
  name?: string;
  /** BullMQ's telemetry (spans for adding and processing jobs) when tracing is on. */
  telemetry?: Telemetry;
}

export interface JobWorker {
  queue: Queue;
  worker: Worker;
  /** Registers (or updates) both repeatable schedules; idempotent, safe from every replica. */
  schedule(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Every BullMQ object's 'error' events as JSON log lines: without a listener BullMQ prints each with console.error,
 * plain text and a stack on stderr, once per reconnection attempt for as long as Redis is away. A lost Redis is a
 * warning naming the dependency and the error code (BullMQ reconnects by itself); anything else an error, its
 * message only. Never the stack.
 */
function reportErrors(
  emitter: { on(event: 'error', listener: (err: Error) => void): unknown },
  source: 'queue' | 'worker',
  logger: Logger,
): void {
  emitter.on('error', (err: Error) => {
    if (isDependencyFailure(err)) {
      logger.warn(
        { dependency: 'redis', source, error: describeDependencyError(err) },
        'job queue lost redis',
      );
    } else {
      logger.error({ source, err: { message: err.message, name: err.name } }, `${source} error`);
    }
  });
}

export function createJobWorker(deps: JobWorkerDeps, config: WorkerConfig): JobWorker {
  const { clock } = deps;
  // The jobs' stores and lifecycle steps, bound once over the worker's connections.
  const ports = createWorkerPorts({ ...deps, chainWait: config.auditChainWait });
  // BullMQ's connections come from the one factory (so Sentinel and Cluster work), without a command timeout:
  // the worker duplicates this one for its blocking pops. A shared connection is closed here, not by BullMQ.
  const connection = createRedis(deps.redisTarget, {
    blocking: true,
    logger: deps.logger,
    bounds: config.redis,
  });
  const prefix = bullPrefix(connection, config.prefix);
  let stopping = false;
  const queue = new Queue(config.queueName, { connection, prefix, telemetry: deps.telemetry });

  async function process(job: Job): Promise<unknown> {
    switch (job.name) {
      case JOB_NAMES.rotateKeys:
        return runRotationTick({
          ports,
          clock,
          schedule: config.keySchedule,
          batchSize: config.rotationBatchSize,
          logger: deps.logger,
          onStep: (step, n) => deps.metrics.keySteps.inc({ step }, n),
        });
      case JOB_NAMES.sweep:
        return runSweeps({
          ports,
          clock,
          batchSize: config.sweepBatchSize,
          maxBatches: config.sweepMaxBatches,
          retention: config.retention,
          stopping: () => stopping,
          onBatch: (target, n) => {
            deps.metrics.sweepRemoved.inc({ target }, n);
          },
        });
      default:
        throw new UnrecoverableError(`unknown job ${job.name}`);
    }
  }

  const worker = new Worker(config.queueName, process, {
    connection,
    prefix,
    name: deps.name,
    telemetry: deps.telemetry,
    concurrency: config.concurrency,
    lockDuration: config.lockDurationMs,
    stalledInterval: config.stalledIntervalMs,
    // A job may lose its worker twice (killed replicas) before it counts as failed.
    maxStalledCount: 2,
    removeOnComplete: { count: 200 },
    removeOnFail: { count: 1000 },
  });

  worker.on('completed', (job, result) => {
    deps.metrics.jobs.inc({ job: job.name, outcome: 'completed' });
    deps.logger.info({ job: job.name, id: job.id, result }, 'job completed');
  });
  worker.on('failed', (job, err) => {
    // Fired on every failed attempt: count retries apart from final failures.
    const final = !job || err instanceof UnrecoverableError || job.attemptsMade >= (job.opts.attempts ?? 1);
    deps.metrics.jobs.inc({ job: job?.name ?? 'unknown', outcome: final ? 'failed' : 'retried' });
    const detail = {
      job: job?.name,
      id: job?.id,
      attempt: job?.attemptsMade,
      err: { message: err.message, name: err.name },
    };
    if (final) deps.logger.error(detail, 'job failed');
    else deps.logger.warn(detail, 'job attempt failed; retrying with backoff');
  });
  worker.on('stalled', (id) => {
    deps.metrics.jobs.inc({ job: 'unknown', outcome: 'stalled' });
    deps.logger.warn({ id }, 'job stalled: its worker stopped; it is rerun');
  });
  reportErrors(queue, 'queue', deps.logger);
  reportErrors(worker, 'worker', deps.logger);

  const jobOpts: JobsOptions = {
    attempts: config.attempts,
    backoff: { type: 'exponential', delay: config.backoffMs },
    removeOnComplete: { count: 200 },
    removeOnFail: { count: 1000 },
  };

  return {
    queue,
    worker,
    async schedule() {
      await queue.upsertJobScheduler(
        JOB_NAMES.rotateKeys,
        { every: config.rotationCheckMs },
        { name: JOB_NAMES.rotateKeys, data: {}, opts: jobOpts },
      );
      await queue.upsertJobScheduler(
        JOB_NAMES.sweep,
        { every: config.sweepEveryMs },
        { name: JOB_NAMES.sweep, data: {}, opts: jobOpts },
      );
    },
    async close() {
      stopping = true;
      // Drains the active jobs (a sweep stops between batches), then releases the connections; every step runs.
      for (const step of [() => worker.close(), () => queue.close(), () => closeRedis(connection)]) {
        await step().catch((err: unknown) =>
          deps.logger.error({ err }, 'error while closing the job worker'),
        );
      }
    },
  };
}
