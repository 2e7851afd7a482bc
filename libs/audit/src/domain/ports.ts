// The port the trail's readers and its retention sweep take (the store under store/ implements it), and the runner
// every audited change goes through.
import type { AuditContext, AuditEntry, AuditEvent, AuditRecorder } from './types';

export interface ChainHead {
  seq: bigint;
  hash: string;
}

/** A read of the trail: every filter optional; actor and target match an id or `kind:id` / `type:id`. */
export interface AuditFilter {
  since?: Date;
  until?: Date;
  /** An exact action (`app.create`) or a family (`app.*`). */
  action?: string;
  actor?: { kind?: string; id: string };
  target?: { type?: string; id: string };
}

/** The chain while its head is locked, inside one transaction (the retention sweep). */
export interface LockedChain {
  head: ChainHead;
  oldest(): Promise<AuditEvent | undefined>;
  /** The row at `seq`, if it is still there. */
  rowAt(seq: bigint): Promise<AuditEvent | undefined>;
  /** The oldest row (lowest seq) stamped at or after `at`. */
  firstAtOrAfter(at: Date): Promise<AuditEvent | undefined>;
  /** Deletes every row below `seq`; how many. */
  deleteBelow(seq: bigint): Promise<number>;
  /** Appended to the chain (after `head`) before the transaction commits. */
  record(entry: AuditEntry): void;
}

export interface AuditTrailStore {
  head(): Promise<ChainHead>;
  /** Rows with seq in (afterSeq, uptoSeq], oldest first, at most `limit`, stamped at or after `since` if given. */
  ascending(q: { afterSeq: bigint; uptoSeq?: bigint; since?: Date; limit: number }): Promise<AuditEvent[]>;
  /** Rows matching `filter` with seq below `beforeSeq` (if given), newest first, at most `limit`. */
  descending(q: AuditFilter & { beforeSeq?: bigint; limit: number }): Promise<AuditEvent[]>;
  /** Runs `work` holding the chain head in one transaction (`context` and `at` stamp what it records). */
  locked<T>(context: AuditContext, at: Date, work: (chain: LockedChain) => Promise<T>): Promise<T>;
}

/**
 * Runs a change in one transaction with its ports bound to it; what it records through `audit` is appended to
 * the chain in that transaction before it commits. When the row cannot be written, the whole change rolls back and
 * the call throws AuditUnavailableError. `P` is the caller's ports (ProvisioningPorts, a host's account stores).
 */
export interface AuditedChanges<P> {
  run<T>(work: (ports: P, audit: AuditRecorder) => Promise<T>): Promise<T>;
  /** The same runner acting for another actor / request (the management host binds one per request). */
  as(context: AuditContext): AuditedChanges<P>;
  readonly context: AuditContext;
}
