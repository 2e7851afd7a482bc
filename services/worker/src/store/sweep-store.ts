// Sweep statements: each takes one bounded batch of rows with FOR UPDATE SKIP LOCKED (no long locks, and
// concurrent sweepers share the work instead of waiting on each other) and returns what it changed.
import { type Db, Prisma } from '@svc/db';
import type { ExpiringTable, SessionSweep, SweepStore } from '../jobs/ports';

/**
 * One batch of the session sweep over the sessions whose `sweep_after` is due (rotations never move it, so they stay
 * HOT updates; it is never later than `expires_at`). Each looked-at session is, by what it is now:
 * - not yet expired (its expiry slid on with rotations): looked at again at `expires_at`;
 * - ACTIVE and expired: becomes EXPIRED, looked at again when retention has passed;
 * - not ACTIVE and expired longer ago than retention: deleted;
 * - not ACTIVE and expired more recently: looked at again when retention has passed.
 * Rows are locked with SKIP LOCKED, so a rotation or another sweeper holding one is left for the next batch.
 */
async function sweepSessionsBatch(
  db: Db,
  at: Date,
  retentionSeconds: number,
  limit: number,
): Promise<SessionSweep> {
  const cutoff = new Date(at.getTime() - retentionSeconds * 1000);
  const retention = `${retentionSeconds} seconds`;
  const [row] = await db.$queryRaw<{ looked: number; purged: number; expired: string[] }[]>`
    WITH picked AS (
      SELECT id, status, expires_at FROM sessions
      WHERE sweep_after <= ${at}
      ORDER BY sweep_after
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED),
    purged AS (
      DELETE FROM sessions s USING picked p
      WHERE s.id = p.id AND p.status <> 'ACTIVE' AND p.expires_at <= ${cutoff}
      RETURNING s.id),
    expired AS (
      UPDATE sessions s SET status = 'EXPIRED', sweep_after = p.expires_at + ${retention}::interval
      FROM picked p WHERE s.id = p.id AND p.status = 'ACTIVE' AND p.expires_at <= ${at}
      RETURNING s.id),
    -- Unreferenced below: PostgreSQL runs every data-modifying CTE to completion regardless.
    deferred AS (
      UPDATE sessions s
      SET sweep_after = CASE WHEN p.expires_at > ${at} THEN p.expires_at
                             ELSE p.expires_at + ${retention}::interval END
      FROM picked p WHERE s.id = p.id AND p.expires_at > ${cutoff}
        AND NOT (p.status = 'ACTIVE' AND p.expires_at <= ${at})
      RETURNING s.id)
    SELECT (SELECT count(*) FROM picked)::int AS looked, (SELECT count(*) FROM purged)::int AS purged,
      ARRAY(SELECT id FROM expired) AS expired`;
  return { looked: row?.looked ?? 0, expired: row?.expired ?? [], purged: row?.purged ?? 0 };
}

/** Deletes one batch of `table`'s rows whose `expires_at` is at or before the cutoff. */
function purgeExpiredBatch(db: Db, table: ExpiringTable, cutoff: Date, limit: number): Promise<number> {
  // An identifier cannot be a parameter; the name is one of the literals above, never input.
  const t = Prisma.raw(table);
  return db.$executeRaw`
    DELETE FROM ${t} WHERE id IN (
      SELECT id FROM ${t} WHERE expires_at <= ${cutoff} LIMIT ${limit} FOR UPDATE SKIP LOCKED)`;
}

/**
 * Receipts that no longer count: accepted before the current acceptance epoch (a receipt at the current epoch, of
 * any revision, is what lets its account sign in; see libs/issuance hasCurrentReceipt).
 */
function purgeReceiptsBatch(db: Db, cutoff: Date, limit: number): Promise<number> {
  return db.$executeRaw`
    DELETE FROM agreement_receipts WHERE id IN (
      SELECT r.id FROM agreement_receipts r
      WHERE r.accepted_at <= ${cutoff}
        AND r.acceptance_epoch < (
          SELECT d.acceptance_epoch FROM agreement_documents d WHERE d.document_type = r.document_type
          ORDER BY d.revision DESC LIMIT 1)
      LIMIT ${limit} FOR UPDATE OF r SKIP LOCKED)`;
}

/**
 * Idempotency-Key records past their window (the management API replays an answer for 24 hours after its key was
 * first used, `created_at`); a claim still without an answer that old belongs to no running request either.
 */
function purgeIdempotencyBatch(db: Db, cutoff: Date, limit: number): Promise<number> {
  return db.$executeRaw`
    DELETE FROM idempotency_records WHERE (operator_key_id, key) IN (
      SELECT operator_key_id, key FROM idempotency_records WHERE created_at <= ${cutoff}
      LIMIT ${limit} FOR UPDATE SKIP LOCKED)`;
}

/** The sweep statements over a database, as the sweep job's port. */
export function createSweepStore(db: Db): SweepStore {
  return {
    sweepSessionsBatch: (at, retentionSeconds, limit) => sweepSessionsBatch(db, at, retentionSeconds, limit),
    purgeExpiredBatch: (table, cutoff, limit) => purgeExpiredBatch(db, table, cutoff, limit),
    purgeReceiptsBatch: (cutoff, limit) => purgeReceiptsBatch(db, cutoff, limit),
    purgeIdempotencyBatch: (cutoff, limit) => purgeIdempotencyBatch(db, cutoff, limit),
  };
}
