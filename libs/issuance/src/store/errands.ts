// Store of errands: a new errand row under its key's hash (the key itself is never stored).
import type { Db } from '@svc/db';

export interface NewErrand {
  errandKeyHash: string;
  applicationId: string;
  accountId: string;
  purpose: 'CLAIMS';
  claims: string[];
  expiresAt: Date;
}

export async function insertErrand(db: Db, errand: NewErrand): Promise<void> {
  await db.errand.create({ data: errand });
}
