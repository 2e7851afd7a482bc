// Store of errands: a new errand row under its key's hash (the key itself is never stored).
import type { Db } from '@svc/db';
import type { ErrandsPort, NewErrand } from '../domain/ports';

async function insertErrand(db: Db, errand: NewErrand): Promise<void> {
  await db.errand.create({ data: errand });
}

export function createErrandsStore(db: Db): ErrandsPort {
  return { insertErrand: (errand) => insertErrand(db, errand) };
}
