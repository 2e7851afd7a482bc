// What the worker's jobs take (ports, bound once over the worker's connections in ../deps.ts): the sweep
// statements, the session-change notices, and the signing-key lifecycle steps with the KEK bound in. No job holds a
// database or Redis handle.
import type { AuditedChanges, AuditTrailStore } from '@svc/audit';
import type { SessionEventsPort } from '@svc/issuance';
import type { KeySchedule, ScheduledRotationResult } from '@svc/keyring';

export interface SessionSweep {
  /** Sessions the batch looked at (sweep_after due). */
  looked: number;
  /** ACTIVE sessions past expiry, now EXPIRED: session caches must be told. */
  expired: string[];
  /** Sessions deleted: no longer active and expired longer ago than retention. */
  purged: number;
}

/** The tables whose rows are done with at their `expires_at`: deleted once that is at or before the cutoff. */
export type ExpiringTable = 'inquiries' | 'device_authorizations' | 'errands';

/** Bounded, SKIP LOCKED batches of the sweep (store/sweep-store.ts); each returns what it changed. */
export interface SweepStore {
  sweepSessionsBatch(at: Date, retentionSeconds: number, limit: number): Promise<SessionSweep>;
  purgeExpiredBatch(table: ExpiringTable, cutoff: Date, limit: number): Promise<number>;
  purgeReceiptsBatch(cutoff: Date, limit: number): Promise<number>;
  /** Deletes one batch of Idempotency-Key records created at or before the cutoff. */
  purgeIdempotencyBatch(cutoff: Date, limit: number): Promise<number>;
}

/** The signing-key lifecycle steps the rotation tick runs, over the database with the KEK bound. */
export interface KeyLifecyclePort {
  /** One scheduled lifecycle step for a scope, under the scope's advisory lock. */
  runScheduledRotation(scopeId: string, schedule: KeySchedule, at: Date): Promise<ScheduledRotationResult>;
  /** Application ids (ascending, after `after`) with a lifecycle step due at `at`; at most `limit`. */
  dueApplicationScopes(
    schedule: KeySchedule,
    at: Date,
    page: { after?: string; limit: number },
  ): Promise<string[]>;
  /** Tells every replica's key ring to drop its cached keys of the scope. */
  publishKeyChange(scopeId: string): Promise<void>;
  /** How the audit trail names a scope: an application's anchor (its id if gone), or the OIDC key set. */
  targetOf(scopeId: string): Promise<{ type: string; id: string }>;
}

/** What a job's audited change runs over: the same stores, bound to the change's transaction. */
export interface WorkerTxPorts {
  sweeps: SweepStore;
  keys: Pick<KeyLifecyclePort, 'runScheduledRotation' | 'targetOf'>;
}

export interface WorkerPorts {
  sweeps: SweepStore;
  sessionEvents: Pick<SessionEventsPort, 'publishSessionChanges'>;
  keys: KeyLifecyclePort;
  /** Changes and their audit rows in one transaction, acting as the worker (`workerActor(job)`). */
  changes: AuditedChanges<WorkerTxPorts>;
  /** The audit trail's old end, cut by the sweep (AUDIT_RETENTION_DAYS). */
  auditTrail: AuditTrailStore;
}
