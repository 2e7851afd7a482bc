// The worker's Prometheus metrics: jobs by outcome, sweep removals per target, key lifecycle steps per kind, and,
// read at scrape time, the queue's jobs by state and each scope's signing-key age and JWK Set size.
import type { Db } from '@svc/db';
import type { OutboxStore } from '@svc/events';
import type { Clock, Metrics } from '@svc/platform';
import { Gauge, Histogram } from 'prom-client';
import { commitDurability } from './commit-durability';
import { readScopeKeys } from './store/key-gauges-store';
import { readCommitSettings } from './store/replication-store';

type Counter = ReturnType<Metrics['counter']>;

export interface WorkerMetrics {
  base: Metrics;
  jobs: Counter;
  sweepRemoved: Counter;
  keySteps: Counter;
  /** Seconds from an event's commit to its first delivery attempt. */
  eventLatency: Histogram<string>;
  /** Failed delivery attempts by reason, and whether the event is now failed for good. */
  eventFailures: Counter;
  eventsDelivered: Counter;
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
    eventLatency: new Histogram({
      name: EVENT_METRICS.latency,
      help: "Seconds from an event's commit (its outbox row) to its first delivery attempt",
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300],
      registers: [base.registry],
    }),
    eventFailures: base.counter(
      EVENT_METRICS.failures,
      'Failed event delivery attempts by reason (http_status, redirect, timeout, connection, dns, private_target, ' +
        'invalid_target, signing); final="true" when the event is failed for good',
      ['reason', 'final'],
    ),
    eventsDelivered: base.counter(EVENT_METRICS.delivered, 'Events delivered (a 2xx answer)'),
  };
}

/** Names the alert rules and the dashboard read (deploy/observability); the test there checks them. */
export const WORKER_GAUGES = {
  queueJobs: 'worker_queue_jobs',
  signingKeyAge: 'signing_key_age_seconds',
  jwksKeys: 'jwks_keys',
  synchronousStandby: 'postgres_synchronous_standby',
} as const;

/** The events metrics the alert rules and the runbook name. */
export const EVENT_METRICS = {
  latency: 'events_delivery_latency_seconds',
  failures: 'events_delivery_failures_total',
  delivered: 'events_delivered_total',
  pending: 'events_outbox_pending',
  oldestPending: 'events_outbox_oldest_pending_seconds',
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
  sources: { queue: JobCounter; db: Db; clock: Clock; outbox?: Pick<OutboxStore, 'pending'> },
): void {
  const { clock } = sources;
  const { outbox } = sources;
  if (outbox) {
    let pending: ReturnType<OutboxStore['pending']> | undefined;
    const pendingOnce = () => {
      pending ??= outbox.pending().finally(() => {
        setImmediate(() => {
          pending = undefined;
        });
      });
      return pending;
    };
    new Gauge({
      name: EVENT_METRICS.pending,
      help: 'Events in the outbox not yet delivered nor failed',
      registers: [base.registry],
      async collect() {
        this.set((await pendingOnce()).count);
      },
    });
    new Gauge({
      name: EVENT_METRICS.oldestPending,
      help: 'Seconds since the oldest pending event was written (0 when none is pending)',
      registers: [base.registry],
      async collect() {
        const { oldest } = await pendingOnce();
        this.set(oldest ? Math.max(0, (clock() - oldest.getTime()) / 1000) : 0);
      },
    });
  }
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
