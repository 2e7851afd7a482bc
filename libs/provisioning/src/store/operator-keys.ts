// Store of the management API's operator keys: rows hold the secret's SHA-256 and lookup prefix, never the secret.
import type { Db } from '@svc/db';
import type { OperatorKeyRecord, OperatorKeysStore, OperatorRole } from '../domain/ports';

const VIEW = { id: true, name: true, role: true, createdAt: true, expiresAt: true, revokedAt: true } as const;

function record(row: {
  id: string;
  name: string;
  role: string;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
}): OperatorKeyRecord {
  return { ...row, role: row.role as OperatorRole };
}

export function createOperatorKeysStore(db: Db): OperatorKeysStore {
  return {
    async create(key) {
      return record(await db.operatorKey.create({ data: key, select: VIEW }));
    },
    async list() {
      return (await db.operatorKey.findMany({ orderBy: { createdAt: 'asc' }, select: VIEW })).map(record);
    },
    async revoke(id, at) {
      const { count } = await db.operatorKey.updateMany({
        where: { id, revokedAt: null },
        data: { revokedAt: at },
      });
      if (count === 1) return 'revoked';
      return (await db.operatorKey.count({ where: { id } })) ? 'already' : 'missing';
    },
    async byLookup(lookup) {
      const row = await db.operatorKey.findUnique({
        where: { lookup },
        select: { ...VIEW, secretHash: true },
      });
      return row ? { ...record(row), secretHash: row.secretHash } : undefined;
    },
  };
}
