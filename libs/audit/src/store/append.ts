// Appending to the chain inside a caller's transaction, and the audited-change runner built on it: the change's
// statements, then its rows, in one transaction, or nothing at all.
import type { Db } from '@svc/db';
import type { Clock } from '@svc/platform';
import { sealEvents } from '../domain/chain';
import { AuditUnavailableError } from '../domain/errors';
import type { AuditedChanges, ChainHead } from '../domain/ports';
import type { AuditContext, AuditEntry, AuditEvent, AuditRecorder } from '../domain/types';
import {
  type ChainWaitBounds,
  DEFAULT_CHAIN_WAIT,
  enterWriters,
  lockChainHeadWithin,
  statementTimeoutOf,
  type Tx,
} from './chain-wait';

export type { ChainWaitBounds, Tx };

/**
 * Audited changes may generate RSA keys (app create, key rotation) inside their transaction: as the key lifecycle's
 * own transactions, more room than Prisma's 5 s default.
 */
export const AUDITED_TX = { maxWait: 10_000, timeout: 30_000 } as const;

/**
 * Outbox rows an audited change wrote name their transaction as `txid:<id>` (EVENT_TXN_OF_TRANSACTION in
 * @svc/events/shared-sql): they get the change's first audit row id before commit.
 */
const AUDITED_EVENTS_TXN = `UPDATE event_outbox SET txn = $1
  WHERE txn = 'txid:' || txid_current()::text`;

/** Locks the chain head (FOR UPDATE: every other append waits here until this transaction ends) and reads it. */
export async function lockChainHead(tx: Tx): Promise<ChainHead> {
  const rows = await tx.$queryRaw<{ seq: bigint; hash: string }[]>`
    SELECT seq, hash FROM audit_chain_head WHERE id = 1 FOR UPDATE`;
  const head = rows[0];
  if (!head) throw new Error('the audit chain head row is missing (run pnpm db:migrate)');
  return { seq: BigInt(head.seq), hash: head.hash };
}

/** Inserts sealed rows and moves the head to the last of them (the head must be locked by this transaction). */
export async function insertSealed(tx: Tx, rows: AuditEvent[]): Promise<void> {
  const last = rows[rows.length - 1];
  if (!last) return;
  await tx.auditEvent.createMany({
    data: rows.map((e) => ({
      seq: BigInt(e.seq),
      id: e.id,
      at: new Date(e.at),
      actorKind: e.actor.kind,
      actorId: e.actor.id,
      actorName: e.actor.name,
      action: e.action,
      targetType: e.target.type,
      targetId: e.target.id,
      changes: e.changes as object,
      requestId: e.requestId,
      sourceAddress: e.sourceAddress,
      userAgent: e.userAgent,
      prevHash: e.prevHash,
      hash: e.hash,
    })),
  });
  await tx.$executeRaw`UPDATE audit_chain_head SET seq = ${BigInt(last.seq)}, hash = ${last.hash} WHERE id = 1`;
}

/** How long `appendAuditEvents` may wait for the chain head's lock: until `deadline` (epoch ms), in slices below
 * `statementTimeoutMs`; `waitMs` is the limit it reports when it gives up. */
export interface ChainLockWait {
  deadline: number;
  statementTimeoutMs: number;
  waitMs: number;
}

/**
 * THE append: writes `entries` as rows of the chain inside the caller's transaction `tx`, stamped `at`, under the
 * chain head's row lock (held until `tx` ends, so appends from every process serialize and seq never repeats or
 * skips). Call it last in the transaction, after the change's own statements, so the lock is held briefly. With
 * `wait`, the lock is waited for until its deadline rather than within one statement timeout. Any failure is
 * AuditUnavailableError; the caller lets it propagate so the transaction rolls back.
 */
export async function appendAuditEvents(
  tx: Tx,
  context: AuditContext,
  entries: readonly AuditEntry[],
  at: Date,
  wait?: ChainLockWait,
): Promise<AuditEvent[]> {
  if (entries.length === 0) return [];
  try {
    const head = wait
      ? await lockChainHeadWithin(tx, wait.statementTimeoutMs, wait.deadline, wait.waitMs)
      : await lockChainHead(tx);
    const rows = sealEvents(head, context, entries, at);
    await insertSealed(tx, rows);
    return rows;
  } catch (err) {
    throw new AuditUnavailableError(err);
  }
}

/**
 * A transaction client that also answers `$transaction`, by joining the transaction it is already in (a callback
 * runs on the same client; an array of queries runs in order). Stores written for a `Db` (which open their own
 * transactions for row locks) then run unchanged inside an audited change.
 */
export function joinTransaction(tx: Tx): Db {
  const joined = new Proxy(tx as object, {
    get(target, prop, receiver) {
      if (prop === '$transaction') {
        return async (arg: unknown) => {
          if (typeof arg === 'function') return (arg as (t: unknown) => unknown)(joined);
          const out: unknown[] = [];
          for (const q of arg as Promise<unknown>[]) out.push(await q);
          return out;
        };
      }
      return Reflect.get(target, prop, receiver);
    },
  });
  return joined as Db;
}

/** What a change's ports are bound with inside its transaction. */
export interface AuditScope<P> {
  /** Runs `hook` once the transaction has committed (a key-change notice); never when it rolled back. */
  afterCommit(hook: () => Promise<void>): void;
  /**
   * A runner for ports inside the transaction (by default the change's own): a nested `changes.run` joins this
   * transaction and records into the same entries (an operation that calls another).
   */
  joined<Q = P>(ports: () => Q): AuditedChanges<Q>;
}

/** What an audited-change runner is made with. */
export interface AuditedRunOptions<P> {
  context: AuditContext;
  clock: Clock;
  bind: (tx: Db, scope: AuditScope<P>) => P;
  /** How long a change waits for its turn and the chain head's lock (default DEFAULT_CHAIN_WAIT). */
  chainWait?: ChainWaitBounds;
}

/**
 * Runs `work` in one transaction over `bind(joined tx)`, then appends what it recorded (stamped by `clock`, for
 * `context`) before commit: the change and its rows commit together or not at all. Hooks registered through the
 * scope's afterCommit run after the commit. The change first waits for a place among the process's audited
 * writers, and then for the chain head's lock, both within `chainWait.waitMs` in all (chain-wait.ts); past it the
 * change is refused (AuditUnavailableError) and nothing changed.
 */
export async function runAudited<P, T>(
  db: Db,
  opts: AuditedRunOptions<P>,
  work: (ports: P, audit: AuditRecorder) => Promise<T>,
): Promise<T> {
  const hooks: (() => Promise<void>)[] = [];
  const bounds = opts.chainWait ?? DEFAULT_CHAIN_WAIT;
  const deadline = Date.now() + bounds.waitMs;
  const wait: ChainLockWait = { deadline, statementTimeoutMs: statementTimeoutOf(db), waitMs: bounds.waitMs };
  const leave = await enterWriters(db, bounds, deadline).catch((err: unknown) => {
    throw new AuditUnavailableError(err);
  });
  let result: T;
  try {
    result = await db.$transaction(async (tx) => {
      const entries: AuditEntry[] = [];
      const recorder: AuditRecorder = { record: (e) => entries.push(e) };
      const joined = <Q>(ports: () => Q): AuditedChanges<Q> => ({
        context: opts.context,
        as: () => {
          throw new Error('a change inside a transaction cannot switch actors');
        },
        run: (inner) => inner(ports(), recorder),
      });
      const ports = opts.bind(joinTransaction(tx), { afterCommit: (h) => hooks.push(h), joined });
      const out = await work(ports, recorder);
      const [first] = await appendAuditEvents(tx, opts.context, entries, new Date(opts.clock()), wait);
      // Events the change wrote to the outbox (libs/events) carry its audit row id as their SET's txn.
      if (first) await tx.$executeRawUnsafe(AUDITED_EVENTS_TXN, first.id);
      return out;
    }, AUDITED_TX);
  } finally {
    leave();
  }
  for (const hook of hooks) await hook();
  return result;
}

/** An AuditedChanges runner over `db` for the ports `bind` makes of each change's transaction. */
export function createAuditedChanges<P>(db: Db, opts: AuditedRunOptions<P>): AuditedChanges<P> {
  return {
    context: opts.context,
    as: (context) => createAuditedChanges(db, { ...opts, context }),
    run: (work) => runAudited(db, opts, work),
  };
}
