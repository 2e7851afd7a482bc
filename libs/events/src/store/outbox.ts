// Store of the event outbox: the worker's leased claim (FOR UPDATE SKIP LOCKED), the outcomes of a pass in one
// statement, the operator's list and redelivery, and the pending gauge's read. Rows written by changes come from
// shared-sql.ts inside the changes' own statements.
import type { Db } from '@svc/db';
import type { AttemptRecord, ClaimedRow, DeliveryStatus, OutboxRow, OutboxStore } from '../domain/ports';

const COLUMNS = `o.id::text AS "id", o.application_id::text AS "applicationId", o.kind, o.target_url AS "targetUrl",
  o.content_type AS "contentType", o.payload, o.txn, o.status::text AS "status", o.attempts,
  o.next_attempt_at AS "nextAttemptAt", o.first_attempt_at AS "firstAttemptAt", o.delivered_at AS "deliveredAt",
  o.last_error AS "lastError", o.last_status AS "lastStatus", o.created_at AS "createdAt"`;

/** Due pending rows, oldest due first, each leased by moving its next attempt past the lease. */
const CLAIM = `WITH due AS (
    SELECT id FROM event_outbox
    WHERE status = 'PENDING' AND next_attempt_at <= now()
    ORDER BY next_attempt_at LIMIT $1
    FOR UPDATE SKIP LOCKED)
  UPDATE event_outbox o SET next_attempt_at = now() + $2::int * interval '1 millisecond'
  FROM due WHERE o.id = due.id
  RETURNING ${COLUMNS}, (SELECT a.anchor FROM applications a WHERE a.id = o.application_id) AS "applicationAnchor"`;

/** Every outcome of a pass; a row no longer pending (redelivered or failed meanwhile) keeps what it has. */
const RECORD = `UPDATE event_outbox o SET attempts = o.attempts + 1,
    first_attempt_at = COALESCE(o.first_attempt_at, v.at),
    status = v.status::"EventDeliveryStatus",
    next_attempt_at = COALESCE(v.next, o.next_attempt_at),
    delivered_at = CASE WHEN v.status = 'DELIVERED' THEN v.at ELSE o.delivered_at END,
    last_error = v.error, last_status = v.http_status
  FROM unnest($1::uuid[], $2::timestamptz[], $3::text[], $4::timestamptz[], $5::text[], $6::int[])
    AS v(id, at, status, next, error, http_status)
  WHERE o.id = v.id AND o.status = 'PENDING'`;

const STATUS_OF = { delivered: 'DELIVERED', retry: 'PENDING', failed: 'FAILED' } as const;

export function createOutboxStore(db: Db): OutboxStore {
  return {
    async claim(limit, leaseMs) {
      return db.$queryRawUnsafe<ClaimedRow[]>(CLAIM, limit, leaseMs);
    },
    async record(attempts: AttemptRecord[]) {
      if (attempts.length === 0) return;
      await db.$executeRawUnsafe(
        RECORD,
        attempts.map((a) => a.id),
        attempts.map((a) => a.at),
        attempts.map((a) => STATUS_OF[a.outcome]),
        attempts.map((a) => (a.outcome === 'retry' ? a.next : null)),
        attempts.map((a) => (a.outcome === 'delivered' ? null : a.error)),
        attempts.map((a) => a.status),
      );
    },
    async list(applicationId, status: DeliveryStatus | undefined, limit) {
      return db.$queryRawUnsafe<OutboxRow[]>(
        `SELECT ${COLUMNS} FROM event_outbox o
          WHERE o.application_id = $1::uuid AND ($2::text IS NULL OR o.status::text = $2::text)
          ORDER BY o.created_at DESC LIMIT $3`,
        applicationId,
        status ?? null,
        limit,
      );
    },
    async redeliver(id, at) {
      const rows = await db.$queryRawUnsafe<OutboxRow[]>(
        `UPDATE event_outbox o SET status = 'PENDING', next_attempt_at = $2, delivered_at = NULL
          WHERE o.id = $1::uuid RETURNING ${COLUMNS}`,
        id,
        at,
      );
      if (rows.length > 0) await db.$executeRawUnsafe(`SELECT pg_notify('event_outbox', '')`);
      return rows[0];
    },
    async pending() {
      const [row] = await db.$queryRawUnsafe<{ count: number; oldest: Date | null }[]>(
        `SELECT count(*)::int AS count, min(created_at) AS oldest FROM event_outbox WHERE status = 'PENDING'`,
      );
      return { count: row?.count ?? 0, oldest: row?.oldest ?? undefined };
    },
  };
}
