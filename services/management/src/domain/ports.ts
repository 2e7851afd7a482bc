// The ports of the management host's own rules: the Idempotency-Key records (PostgreSQL) and the operator keys
// (provisioning's store, through a short cache). Rules take these, never a database or Redis handle.
import type { OperatorKeyView } from '@svc/provisioning';

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
   * Claims (operatorKeyId, key) for a request atomically: a record older than `staleBefore` is claimed anew; one
   * younger is returned as it stands. Of concurrent claims of one key, exactly one is `claimed`.
   */
  claim(
    operatorKeyId: string,
    key: string,
    requestHash: string,
    now: Date,
    staleBefore: Date,
  ): Promise<Claim>;
  /** Stores the first answer of a claimed key. */
  complete(operatorKeyId: string, key: string, answer: StoredAnswer, at: Date): Promise<void>;
  /** Gives a claimed key up (the change failed for a reason a retry may not meet): the next request runs. */
  release(operatorKeyId: string, key: string): Promise<void>;
}

export interface OperatorKeysPort {
  /** The live key a presented secret belongs to, or undefined (unknown, revoked, expired, malformed). */
  find(secret: string): Promise<OperatorKeyView | undefined>;
}
