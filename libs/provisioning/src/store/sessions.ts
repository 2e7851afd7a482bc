// Store of sessions as operators see them: one subject's sessions in an application, and the suspend/resume move.
import type { Db } from '@svc/db';
import type { SessionsStore } from '../domain/ports';

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
      const moved = await db.session.updateMany({
        where: { id: sid, status: move.from, expiresAt: { gt: now } },
        data: { status: move.to },
      });
      return moved.count === 1;
    },
    async status(sid) {
      return (
        (await db.session.findUnique({ where: { id: sid }, select: { status: true, expiresAt: true } })) ??
        undefined
      );
    },
  };
}
