// The worker's Prometheus counters: jobs by outcome, sweep removals per target, key lifecycle steps per kind.
import type { Metrics } from '@svc/platform';

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
