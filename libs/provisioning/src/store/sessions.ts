// Store of sessions as operators see them: one subject's sessions in an application, and the suspend/resume move.
import type { Db } from '@svc/db';
import { EVENT_TXN_OF_TRANSACTION, sessionRevokedOutboxSql } from '@svc/events/shared-sql';
import type { SessionsStore } from '../domain/ports';

/**
 * Moves a session ($1) from $2 to $3 while unexpired at $4; a suspension writes the session's session-revoked event
 * (operator) in the same statement (its txn the audited change's audit row id): its tokens stop working until an operator resumes it.
 */
const MOVE_STATUS = `WITH moved AS (
    UPDATE sessions SET status = $3::"SessionStatus"
    WHERE id = $1 AND status = $2::"SessionStatus" AND expires_at > $4
    RETURNING id, application_id, subject, status),
  events AS (${sessionRevokedOutboxSql(
    `(SELECT * FROM moved WHERE status = 'SUSPENDED')`,
    `'operator'::text`,
    EVENT_TXN_OF_TRANSACTION,
  )})
  SELECT id FROM moved`;

export function createSessionsStore(db: Db): SessionsStore {
  return {
    list(applicationId, accountId, limit) {
      return db.session.findMany({
        where: { applicationId, accountId },
        orderBy: { createdAt: 'desc' },
        take: limit,
      });
    },
    async moveStatus(sid, move, now) {
      const moved = await db.$queryRawUnsafe<{ id: string }[]>(MOVE_STATUS, sid, move.from, move.to, now);
      return moved.length === 1;
    },
    async status(sid) {
      return (
        (await db.session.findUnique({ where: { id: sid }, select: { status: true, expiresAt: true } })) ??
        undefined
      );
    },
  };
}
