// Store of basic-terms revisions as operators publish them: the newest revision and a new one, under one lock.
import type { Db } from '@svc/db';
import type { TermsStore } from '../domain/ports';

export function createTermsStore(db: Db): TermsStore {
  return {
    withLock(work) {
      return db.$transaction(async (tx) => {
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('basic-terms'))`;
        return work({
          async newest() {
            const last = await tx.agreementDocument.findFirst({
              where: { documentType: 'BASIC_TERMS' },
              orderBy: { revision: 'desc' },
              select: { revision: true, acceptanceEpoch: true, body: true },
            });
            return last ?? undefined;
          },
          async insert({ revision, acceptanceEpoch, body }) {
            await tx.agreementDocument.create({
              data: { documentType: 'BASIC_TERMS', revision, acceptanceEpoch, body },
            });
          },
        });
      });
    },
  };
}
