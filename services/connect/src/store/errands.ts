// Errands as the errand pages need them: found by the hash of their key, completed once (Prisma only).
import type { Db } from '@svc/db';
import type { ErrandStore } from '../domain/ports';

export function createErrandStore(db: Db): ErrandStore {
  return {
    async byKeyHash(errandKeyHash) {
      return (await db.errand.findUnique({ where: { errandKeyHash } })) ?? undefined;
    },
    async complete(id, now) {
      const res = await db.errand.updateMany({
        where: { id, state: 'PENDING', expiresAt: { gt: now } },
        data: { state: 'COMPLETED', completedAt: now },
      });
      return res.count === 1;
    },
  };
}
