// Idempotency-Key records in PostgreSQL: one row per (operator key, key), claimed by one INSERT ... ON CONFLICT so
// that of concurrent requests with one key exactly one runs, across every replica.
import type { Db } from '@svc/db';
import type { Claim, IdempotencyPort, StoredAnswer } from '../domain/ports';

interface Row {
  request_hash: string;
  status: number | null;
  headers: Record<string, string> | null;
  body: string | null;
  claimed: boolean;
}

export function createIdempotencyStore(db: Db): IdempotencyPort {
  return {
    async claim(operatorKeyId, key, requestHash, now, staleBefore, abandonedBefore): Promise<Claim> {
      // A fresh row, or a stale one taken over, is ours (xmax = 0 on an insert; the update sets it).
      const claimed = await db.$queryRaw<Row[]>`
        INSERT INTO idempotency_records (operator_key_id, key, request_hash, created_at)
        VALUES (${operatorKeyId}::uuid, ${key}, ${requestHash}, ${now})
        ON CONFLICT (operator_key_id, key) DO UPDATE
          SET request_hash = EXCLUDED.request_hash, created_at = EXCLUDED.created_at,
              status = NULL, headers = NULL, body = NULL, completed_at = NULL
          WHERE idempotency_records.created_at < ${staleBefore}
             OR (idempotency_records.completed_at IS NULL AND idempotency_records.created_at < ${abandonedBefore})
        RETURNING request_hash, status, headers, body, true AS claimed`;
      if (claimed.length) return { kind: 'claimed' };
      const rows = await db.$queryRaw<Row[]>`
        SELECT request_hash, status, headers, body, false AS claimed FROM idempotency_records
        WHERE operator_key_id = ${operatorKeyId}::uuid AND key = ${key}`;
      const row = rows[0];
      // Released between our insert and this read: another request holds it now, as far as this one knows.
      if (!row) return { kind: 'existing', requestHash, answer: undefined };
      const answer: StoredAnswer | undefined =
        row.status === null
          ? undefined
          : { status: row.status, headers: row.headers ?? {}, body: row.body ?? '' };
      return { kind: 'existing', requestHash: row.request_hash, answer };
    },
    async complete(operatorKeyId, key, answer, at) {
      const { count } = await db.idempotencyRecord.updateMany({
        where: { operatorKeyId, key, completedAt: null },
        data: { status: answer.status, headers: answer.headers, body: answer.body, completedAt: at },
      });
      // Released or answered meanwhile: storing this answer would hide the other; the change (if any) rolls back.
      if (count !== 1) throw new Error('the Idempotency-Key claim was lost before its answer was stored');
    },
    async release(operatorKeyId, key) {
      await db.idempotencyRecord.deleteMany({ where: { operatorKeyId, key, completedAt: null } });
    },
  };
}
