// Store of the credentials direct issue accepts: access keys (hashed secrets), public keys, and the workloads
// and accounts they are bound to. No rules here; the access-key lookup is a prepared statement (hot path).
import { type Db, runPrepared, type Statement } from '@svc/db';
import type { JWK } from 'jose';

export interface AccessKeyRow {
  id: string;
  secretHash: string;
  applicationId: string;
  accountId: string;
  workloadId: string | null;
  status: 'ACTIVE' | 'REVOKED';
  /** The bound account's authority version at lookup (undefined when the account is gone). */
  authorityVersion?: number;
}

/** The key and its account's authority version in one round trip. */
const FIND_ACCESS_KEY: Statement = {
  name: 'native_access_key_v1',
  text: `SELECT k.id, k.secret_hash AS "secretHash", k.application_id AS "applicationId", k.account_id AS "accountId",
      k.workload_id AS "workloadId", k.status, a.authority_version AS "authorityVersion"
    FROM access_keys k LEFT JOIN accounts a ON a.id = k.account_id
    WHERE k.identifier = $1`,
};

export interface PublicKeyRow {
  id: string;
  jwk: JWK;
  applicationId: string;
  accountId: string;
  workloadId: string | null;
  status: 'ACTIVE' | 'REVOKED';
}

export interface WorkloadRow {
  id: string;
  kind: 'ACCOUNT' | 'AGENT' | 'AUTOMATION';
  ownerAccountId: string;
  status: 'ACTIVE' | 'REVOKED';
  generation: number;
}

export function createCredentialStore(db: Db) {
  return {
    async findAccessKey(identifier: string): Promise<AccessKeyRow | null> {
      const [row] = await runPrepared<AccessKeyRow & { authorityVersion: number | null }>(
        db,
        FIND_ACCESS_KEY,
        [identifier],
      );
      return row ? { ...row, authorityVersion: row.authorityVersion ?? undefined } : null;
    },

    async findPublicKey(kid: string): Promise<PublicKeyRow | null> {
      const row = await db.publicKey.findUnique({
        where: { kid },
        select: { id: true, jwk: true, applicationId: true, accountId: true, workloadId: true, status: true },
      });
      return row ? { ...row, jwk: row.jwk as JWK } : null;
    },

    findWorkload(id: string): Promise<WorkloadRow | null> {
      return db.workload.findUnique({
        where: { id },
        select: { id: true, kind: true, ownerAccountId: true, status: true, generation: true },
      });
    },

    /** The account's authority version now, or undefined when the account is gone. */
    async authorityVersion(accountId: string): Promise<number | undefined> {
      const row = await db.account.findUnique({
        where: { id: accountId },
        select: { authorityVersion: true },
      });
      return row?.authorityVersion;
    },
  };
}

export type CredentialStore = ReturnType<typeof createCredentialStore>;
