// The sweep job: expires sessions past their expiry and purges rows past retention, target by target, in
// bounded batches. Each batch commits on its own, so a worker killed mid-sweep loses nothing: the committed batches
// are done, and the rerun (stalled-job recovery or the next tick) picks up exactly the rows still left.
import { changed, sweepAuditRetention, workerActor } from '@svc/audit';
import type { Clock } from '@svc/platform';
import type { RetentionConfig } from '../config';
import type { WorkerPorts } from './ports';

export const SWEEP_TARGETS = [
  'sessions',
  'inquiries',
  'device_authorizations',
  'errands',
  'agreement_receipts',
  'audit_events',
  'idempotency_records',
] as const;
export type SweepTarget = (typeof SWEEP_TARGETS)[number];

export interface SweepDeps {
  ports: Pick<WorkerPorts, 'sweeps' | 'sessionEvents' | 'changes' | 'auditTrail'>;
  clock: Clock;
  batchSize: number;
  maxBatches: number;
  retention: RetentionConfig;
  /** Called after each committed batch (metrics, progress). */
  onBatch?: (target: SweepTarget, count: number) => void | Promise<void>;
  /** True once the worker is shutting down: stop between batches, the next tick continues. */
  stopping?: () => boolean;
}

export type SweepResult = Record<SweepTarget, number>;

const before = (at: Date, seconds: number) => new Date(at.getTime() - seconds * 1000);
const SWEEP_ACTOR = workerActor('sweep');

function batchOf(deps: SweepDeps, target: SweepTarget, at: Date): () => Promise<number> {
  const n = deps.batchSize;
  const r = deps.retention;
  const store = deps.ports.sweeps;
  switch (target) {
    case 'sessions':
      return async () => {
        // Sessions the batch ended are recorded in the audit trail in the batch's own transaction.
        const swept = await deps.ports.changes.as(SWEEP_ACTOR).run(async (tx, audit) => {
          const batch = await tx.sweeps.sweepSessionsBatch(at, r.sessionSeconds, n);
          if (batch.expired.length > 0) {
            audit.record({
              action: 'sessions.expire',
              target: { type: 'sessions', id: 'expired' },
              changes: { status: changed('ACTIVE', 'EXPIRED'), sids: changed(null, batch.expired) },
            });
          }
          return batch;
        });
        // Session caches on every replica drop the newly expired sessions at once (introspection reads `expired`).
        await deps.ports.sessionEvents.publishSessionChanges(swept.expired);
        return swept.looked;
      };
    case 'inquiries':
      return () => store.purgeExpiredBatch(target, before(at, r.inquirySeconds), n);
    case 'device_authorizations':
      return () => store.purgeExpiredBatch(target, before(at, r.deviceAuthorizationSeconds), n);
    case 'errands':
      return () => store.purgeExpiredBatch(target, before(at, r.errandSeconds), n);
    case 'agreement_receipts':
      return () => store.purgeReceiptsBatch(before(at, r.receiptSeconds), n);
    case 'audit_events':
      // The trail's old end, at most a batch per cut, each cut recorded by a row of its own (verify still holds).
      return async () =>
        (
          await sweepAuditRetention(deps.ports, {
            days: r.auditDays,
            clock: () => at.getTime(),
            context: SWEEP_ACTOR,
            limit: n,
          })
        ).deleted;
    case 'idempotency_records':
      // The management API's Idempotency-Key records: replayed for 24 hours, then nothing reads them.
      return () => store.purgeIdempotencyBatch(before(at, r.idempotencySeconds), n);
  }
}

/** Runs every sweep target once; returns how many rows each changed in this run. */
export async function runSweeps(deps: SweepDeps): Promise<SweepResult> {
  const at = new Date(deps.clock());
  const result = Object.fromEntries(SWEEP_TARGETS.map((t) => [t, 0])) as SweepResult;
  for (const target of SWEEP_TARGETS) {
    const batch = batchOf(deps, target, at);
    for (let i = 0; i < deps.maxBatches; i++) {
      if (deps.stopping?.()) return result;
      const count = await batch();
      result[target] += count;
      if (count > 0) await deps.onBatch?.(target, count);
      if (count < deps.batchSize) break;
    }
  }
  return result;
}
