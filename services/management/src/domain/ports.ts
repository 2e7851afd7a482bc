// The ports of the management host's own rules: the Idempotency-Key records (PostgreSQL) and the operator keys
// (provisioning's store, through a short cache). Rules take these, never a database or Redis handle.
import type { OperatorKeyView, ProvisioningPorts } from '@svc/provisioning';

/** A stored answer of a POST, replayed to the same key and body. */
export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** What claiming an Idempotency-Key found: it is ours to run, or someone's claim (finished or still running). */
export type Claim =
  | { kind: 'claimed' }
  | { kind: 'existing'; requestHash: string; answer: StoredAnswer | undefined };

export interface IdempotencyPort {
  /**
   * Claims (operatorKeyId, key) for a request atomically: a record older than `staleBefore`, or one without an
   * answer older than `abandonedBefore`, is claimed anew; any other is returned as it stands. Of concurrent claims
   * of one key, exactly one is `claimed`.
   */
  claim(
    operatorKeyId: string,
    key: string,
    requestHash: string,
    now: Date,
    staleBefore: Date,
    abandonedBefore: Date,
  ): Promise<Claim>;
  /**
   * Stores the first answer of a claimed key. Bound to a change's transaction, it commits with the change (a crash
   * between them cannot leave a change without its answer, whose retry would apply it again).
   */
  complete(operatorKeyId: string, key: string, answer: StoredAnswer, at: Date): Promise<void>;
  /**
   * Gives a claimed key up (the change failed for a reason a retry may not meet): the next request runs. Only a key
   * without an answer: one whose change committed (with its answer) stays.
   */
  release(operatorKeyId: string, key: string): Promise<void>;
}

export interface OperatorKeysPort {
  /** The live key a presented secret belongs to, or undefined (unknown, revoked, expired, malformed). */
  find(secret: string): Promise<OperatorKeyView | undefined>;
}

/** Locks that serialize the API's changes to one resource, held until the change's transaction ends. */
export interface ResourceLocksPort {
  /** Waits for, then holds, the lock of `resource` (a read route's path with its parameters filled in). */
  lock(resource: string): Promise<void>;
}

/**
 * What one API change runs over, all in one audited transaction: the provisioning ports (a command's own changes
 * join it), the Idempotency-Key records (its answer is stored in it) and the resource locks (its If-Match is checked
 * in it).
 */
export interface ChangePorts {
  provisioning: ProvisioningPorts;
  idempotency: IdempotencyPort;
  resources: ResourceLocksPort;
  /** Runs `hook` once the change has committed (announcements to running hosts); never when it rolled back. */
  afterCommit(hook: () => Promise<void>): void;
}
