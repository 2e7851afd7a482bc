// Store of client keys: an ACTIVE key by kid, with the application it authenticates.
import type { Db } from '@svc/db';
import type { JWK } from 'jose';
import type { ClientKeyStore } from '../domain/ports';

export function createClientKeyStore(db: Db): ClientKeyStore {
  return {
    async findActive(kid) {
      const row = await db.clientKey.findUnique({
        where: { kid },
        include: { application: { select: { id: true, anchor: true } } },
      });
      if (row?.status !== 'ACTIVE') return undefined;
      return { jwk: row.jwk as JWK, applicationId: row.application.id, anchor: row.application.anchor };
    },
  };
}
