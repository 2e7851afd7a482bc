// Sweep statements: each takes one bounded batch of rows with FOR UPDATE SKIP LOCKED (no long locks, and
// concurrent sweepers share the work instead of waiting on each other) and returns what it changed.
import type { Db } from '@svc/db';

/** Marks ACTIVE sessions past their expiry as EXPIRED; returns their ids so session caches can be told. */
export async function expireSessionsBatch(db: Db, at: Date, limit: number): Promise<string[]> {
  const rows = await db.$queryRaw<{ id: string }[]>`
    WITH picked AS (
      SELECT id FROM sessions
      WHERE status = 'ACTIVE' AND expires_at <= ${at}
      ORDER BY expires_at
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED)
    UPDATE sessions s SET status = 'EXPIRED'
    FROM picked WHERE s.id = picked.id
    RETURNING s.id`;
  return rows.map((r) => r.id);
}

export function purgeRefreshVersionsBatch(db: Db, cutoff: Date, limit: number): Promise<number> {
  return db.$executeRaw`
    DELETE FROM refresh_versions WHERE id IN (
      SELECT id FROM refresh_versions WHERE expires_at <= ${cutoff} LIMIT ${limit} FOR UPDATE SKIP LOCKED)`;
}

export function purgeInquiriesBatch(db: Db, cutoff: Date, limit: number): Promise<number> {
  return db.$executeRaw`
    DELETE FROM inquiries WHERE id IN (
      SELECT id FROM inquiries WHERE expires_at <= ${cutoff} LIMIT ${limit} FOR UPDATE SKIP LOCKED)`;
}

export function purgeDeviceAuthorizationsBatch(db: Db, cutoff: Date, limit: number): Promise<number> {
  return db.$executeRaw`
    DELETE FROM device_authorizations WHERE id IN (
      SELECT id FROM device_authorizations WHERE expires_at <= ${cutoff} LIMIT ${limit} FOR UPDATE SKIP LOCKED)`;
}

export function purgeErrandsBatch(db: Db, cutoff: Date, limit: number): Promise<number> {
  return db.$executeRaw`
    DELETE FROM errands WHERE id IN (
      SELECT id FROM errands WHERE expires_at <= ${cutoff} LIMIT ${limit} FOR UPDATE SKIP LOCKED)`;
}

/**
 * Receipts that no longer count: accepted before the current acceptance epoch (a receipt at the current epoch, of
 * any revision, is what lets its account sign in; see libs/issuance hasCurrentReceipt).
 */
export function purgeReceiptsBatch(db: Db, cutoff: Date, limit: number): Promise<number> {
  return db.$executeRaw`
    DELETE FROM agreement_receipts WHERE id IN (
      SELECT r.id FROM agreement_receipts r
      WHERE r.accepted_at <= ${cutoff}
        AND r.acceptance_epoch < (
          SELECT d.acceptance_epoch FROM agreement_documents d WHERE d.document_type = r.document_type
          ORDER BY d.revision DESC LIMIT 1)
      LIMIT ${limit} FOR UPDATE OF r SKIP LOCKED)`;
}
