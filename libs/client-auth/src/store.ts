// Store of client keys: an ACTIVE key by kid, with the application it authenticates.
import type { Db } from '@svc/db';
import type { JWK } from 'jose';

export interface ActiveClientKey {
  jwk: JWK;
  applicationId: string;
  anchor: string;
}

/** The key named by `kid` when it exists and is ACTIVE. */
export async function findActiveClientKey(db: Db, kid: string): Promise<ActiveClientKey | undefined> {
  const row = await db.clientKey.findUnique({
    where: { kid },
    include: { application: { select: { id: true, anchor: true } } },
  });
  if (row?.status !== 'ACTIVE') return undefined;
  return { jwk: row.jwk as JWK, applicationId: row.application.id, anchor: row.application.anchor };
}
