// The worker's Prometheus metrics: jobs by outcome, sweep removals per target, key lifecycle steps per kind, and,
// read at scrape time, the queue's jobs by state and each scope's signing-key age and JWK Set size.
import type { Db } from '@svc/db';
import type { Clock, Metrics } from '@svc/platform';
import { Gauge } from 'prom-client';
import { commitDurability } from './commit-durability';
import { readScopeKeys } from './store/key-gauges-store';
import { readCommitSettings } from './store/replication-store';

type Counter = ReturnType<Metrics['counter']>;

export interface WorkerMetrics {
  base: Metrics;
  jobs: Counter;
  sweepRemoved: Counter;
  keySteps: Counter;
}

export function workerMetrics(base: Metrics): WorkerMetrics {
  return {
    base,
    jobs: base.counter(
      'worker_jobs_total',
      'Jobs by name and outcome (completed, retried, failed, stalled)',
      ['job', 'outcome'],
    ),
    sweepRemoved: base.counter('worker_sweep_removed_total', 'Rows expired or purged by sweeps', ['target']),
    keySteps: base.counter('worker_key_lifecycle_steps_total', 'Signing-key lifecycle steps applied', [
      'step',
    ]),
  };
}

/** Names the alert rules and the dashboard read (deploy/observability); the test there checks them. */
export const WORKER_GAUGES = {
  queueJobs: 'worker_queue_jobs',
  signingKeyAge: 'signing_key_age_seconds',
  jwksKeys: 'jwks_keys',
  synchronousStandby: 'postgres_synchronous_standby',
} as const;

/** Anything that counts a queue's jobs by state (BullMQ's Queue). */
export interface JobCounter {
  getJobCounts(...states: string[]): Promise<Record<string, number>>;
}

const QUEUE_STATES = ['waiting', 'delayed', 'active', 'failed', 'prioritized', 'waiting-children'];

/**
 * Gauges read when Prometheus scrapes: the queue's jobs by state (a backlog is waiting jobs that do not drain), per
 * signing scope the active key's age (rotation overdue) and the JWK Set's size (near the 32-key limit), and whether
 * PostgreSQL's commits wait for a synchronous standby (commit-durability.ts).
 */
export function registerWorkerGauges(
  base: Metrics,
  sources: { queue: JobCounter; db: Db; clock: Clock },
): void {
  const { clock } = sources;
  new Gauge({
    name: WORKER_GAUGES.queueJobs,
    help: 'Jobs in the worker queue by state',
    labelNames: ['state'],
    registers: [base.registry],
    async collect() {
      const counts = await sources.queue.getJobCounts(...QUEUE_STATES);
      this.reset();
      for (const state of QUEUE_STATES) this.set({ state }, counts[state] ?? 0);
    },
  });
  let scopes: Promise<Awaited<ReturnType<typeof readScopeKeys>>> | undefined;
  // One read serves both key gauges of a scrape.
  const readOnce = () => {
    scopes ??= readScopeKeys(sources.db, new Date(clock())).finally(() => {
      setImmediate(() => {
        scopes = undefined;
      });
    });
    return scopes;
  };
  new Gauge({
    name: WORKER_GAUGES.signingKeyAge,
    help: "Seconds since the scope's active signing key was activated (scope: application anchor or oidc)",
    labelNames: ['scope'],
    registers: [base.registry],
    async collect() {
      const rows = await readOnce();
      this.reset();
      for (const r of rows) if (r.activeAgeSeconds !== null) this.set({ scope: r.scope }, r.activeAgeSeconds);
    },
  });
  new Gauge({
    name: WORKER_GAUGES.jwksKeys,
    help: "Keys the scope's JWK Set publishes (the set holds at most 32)",
    labelNames: ['scope'],
    registers: [base.registry],
    async collect() {
      const rows = await readOnce();
      this.reset();
      for (const r of rows) this.set({ scope: r.scope }, r.published);
    },
  });
  new Gauge({
    name: WORKER_GAUGES.synchronousStandby,
    help:
      '1 when PostgreSQL makes commits wait for a synchronous standby, 0 when it does not (none named, ' +
      'synchronous_commit local or off; also 0 where replication is below PostgreSQL: RDS Multi-AZ, Cloud SQL HA, ' +
      'Aurora), labelled with synchronous_commit; no series when the settings cannot be read',
    labelNames: ['synchronous_commit'],
    registers: [base.registry],
    async collect() {
      this.reset();
      const settings = await readCommitSettings(sources.db).catch(() => undefined);
      if (settings)
        this.set(
          { synchronous_commit: settings.synchronousCommit },
          commitDurability(settings) === 'synchronous' ? 1 : 0,
        );
    },
  });
}
