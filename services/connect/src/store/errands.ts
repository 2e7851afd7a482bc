// Errands as the errand pages need them: found by the hash of their key, completed once (Prisma only).
import type { Db } from '@svc/db';

export function createErrandStore(db: Db) {
  return {
    byKeyHash(errandKeyHash: string) {
      return db.errand.findUnique({ where: { errandKeyHash } });
    },
    /** PENDING -> COMPLETED once, while unexpired. */
    async complete(id: string, now: Date): Promise<boolean> {
      const res = await db.errand.updateMany({
        where: { id, state: 'PENDING', expiresAt: { gt: now } },
        data: { state: 'COMPLETED', completedAt: now },
      });
      return res.count === 1;
    },
  };
}
export type ErrandStore = ReturnType<typeof createErrandStore>;
