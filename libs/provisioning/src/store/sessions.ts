// Store of sessions as operators see them: one subject's sessions in an application, and the suspend/resume move.
import type { Db } from '@svc/db';

type Movable = 'ACTIVE' | 'SUSPENDED';

/** An account's sessions in an application, newest first, at most `limit`. */
export async function readSessions(db: Db, applicationId: string, accountId: string, limit: number) {
  return db.session.findMany({
    where: { applicationId, accountId },
    orderBy: { createdAt: 'desc' },
    take: limit,
  });
}

/**
 * One conditional write: the session moves from `from` to `to` only if it is still `from` and unexpired at `now`
 * (a rotation or revocation racing it wins or loses whole). False when it did not move.
 */
export async function moveSessionStatus(
  db: Db,
  sid: string,
  move: { from: Movable; to: Movable },
  now: Date,
): Promise<boolean> {
  const moved = await db.session.updateMany({
    where: { id: sid, status: move.from, expiresAt: { gt: now } },
    data: { status: move.to },
  });
  return moved.count === 1;
}

export async function readSessionStatus(db: Db, sid: string) {
  return (
    (await db.session.findUnique({ where: { id: sid }, select: { status: true, expiresAt: true } })) ??
    undefined
  );
}
