// Waiting for the chain head: every audited change, fleet-wide, takes one row lock last in its transaction, so under
// many writers the waits queue. They are bounded by the chain's own limit (AUDIT_CHAIN_WAIT_MS), not by the
// statement timeout meant for a stalled database, and a process lets only a few of its changes wait in PostgreSQL at
// once (AUDIT_WRITERS_PER_PROCESS): the rest queue in the process, without holding a pooled connection.
import { type Db, DEFAULT_DB_BOUNDS, dbBoundsOf } from '@svc/db';
import type { ChainHead } from '../domain/ports';

/** An interactive transaction's client (what `db.$transaction(async (tx) => ...)` hands its callback). */
export type Tx = Parameters<Parameters<Db['$transaction']>[0]>[0];

/** How audited changes wait for the chain (a process's configuration; see docs/management.md). */
export interface ChainWaitBounds {
  /**
   * The longest an audited change waits, for its turn in the process and then for the chain head's lock, before it
   * is refused (503, nothing changed) (AUDIT_CHAIN_WAIT_MS, default 15000).
   */
  waitMs: number;
  /** Audited changes one process runs at once over one database client (AUDIT_WRITERS_PER_PROCESS, default 4). */
  writersPerProcess: number;
}

export const DEFAULT_CHAIN_WAIT: ChainWaitBounds = { waitMs: 15_000, writersPerProcess: 4 };

/** The chain's wait ran out: the change is refused as if its row could not be written. */
export class ChainWaitExceededError extends Error {
  constructor(where: 'in the process' | 'for the chain head lock', waitMs: number) {
    super(`waited ${where} past AUDIT_CHAIN_WAIT_MS (${waitMs} ms)`);
    this.name = 'ChainWaitExceededError';
  }
}

/** A counting semaphore with a deadline per waiter, first come first served. */
class Gate {
  private running = 0;
  private readonly queue: { go: () => void }[] = [];

  constructor(readonly size: number) {}

  /** Resolves with a release once a place is free, or rejects at `deadline` (epoch ms) having taken none. */
  enter(deadline: number, waitMs: number): Promise<() => void> {
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      const next = this.queue.shift();
      if (next) next.go();
      else this.running--;
    };
    if (this.running < this.size) {
      this.running++;
      return Promise.resolve(release);
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        go: () => {
          clearTimeout(timer);
          resolve(release);
        },
      };
      const timer = setTimeout(
        () => {
          const at = this.queue.indexOf(waiter);
          if (at >= 0) this.queue.splice(at, 1);
          reject(new ChainWaitExceededError('in the process', waitMs));
        },
        Math.max(0, deadline - Date.now()),
      );
      this.queue.push(waiter);
    });
  }
}

/** One gate per database client: a process opens one client, so this is per process (and per pool in tests). */
const gates = new WeakMap<Db, Gate>();

/** Takes a place among `db`'s audited writers, waiting until `deadline` at most; returns its release. */
export function enterWriters(db: Db, bounds: ChainWaitBounds, deadline: number): Promise<() => void> {
  let gate = gates.get(db);
  if (!gate || gate.size !== bounds.writersPerProcess) {
    gate = new Gate(Math.max(1, bounds.writersPerProcess));
    gates.set(db, gate);
  }
  return gate.enter(deadline, bounds.waitMs);
}

/** The statement timeout `db`'s connections run under (the default bounds for a client made elsewhere). */
export function statementTimeoutOf(db: Db): number {
  try {
    return dbBoundsOf(db).statementTimeoutMs;
  } catch {
    return DEFAULT_DB_BOUNDS.statementTimeoutMs;
  }
}

/** PostgreSQL's lock_timeout and statement_timeout (the server cancelled the statement; the connection is fine). */
const WAIT_CODES = new Set(['55P03', '57014']);

/** Whether `err` (or a cause of it) is the server ending a statement's wait (WAIT_CODES). */
function isWaitEnded(err: unknown): boolean {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 8; depth++) {
    const o = e as { code?: unknown; originalCode?: unknown; message?: unknown; cause?: unknown };
    if (WAIT_CODES.has(String(o.code)) || WAIT_CODES.has(String(o.originalCode))) return true;
    e = o.cause ?? (o as { meta?: { driverAdapterError?: unknown } }).meta?.driverAdapterError;
  }
  return false;
}

/**
 * Locks the chain head (FOR UPDATE) and reads it, waiting until `deadline` at most. Each try waits under a
 * `lock_timeout` of a quarter of the statement timeout (a row lock's wait can be two or three lock waits in one
 * statement: the tuple, then each transaction that held the row), so that the client's query timeout, which would
 * count the wait as a database outage, never ends it; a try the server ends (lock_timeout, or statement_timeout all
 * the same) is rolled back to a savepoint, leaving the transaction usable, and tried again. Past the deadline the
 * wait is given up (ChainWaitExceededError).
 */
export async function lockChainHeadWithin(
  tx: Tx,
  statementTimeoutMs: number,
  deadline: number,
  waitMs: number,
): Promise<ChainHead> {
  const slice = Math.max(1, Math.floor(statementTimeoutMs / 4));
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) throw new ChainWaitExceededError('for the chain head lock', waitMs);
    await tx.$executeRawUnsafe('SAVEPOINT audit_chain_wait');
    // SET LOCAL lasts to the end of the transaction (unless rolled back to the savepoint): the statements after the
    // lock wait for no other lock, so a lock_timeout left in place changes nothing for them.
    await tx.$executeRawUnsafe(`SET LOCAL lock_timeout = ${Math.max(1, Math.min(left, slice))}`);
    try {
      const rows = await tx.$queryRaw<{ seq: bigint; hash: string }[]>`
        SELECT seq, hash FROM audit_chain_head WHERE id = 1 FOR UPDATE`;
      const head = rows[0];
      if (!head) throw new Error('the audit chain head row is missing (run pnpm db:migrate)');
      return { seq: BigInt(head.seq), hash: head.hash };
    } catch (err) {
      if (!isWaitEnded(err)) throw err;
      await tx.$executeRawUnsafe('ROLLBACK TO SAVEPOINT audit_chain_wait');
    }
  }
}
