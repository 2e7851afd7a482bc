// Store of the credentials direct issue accepts: access keys (hashed secrets), public keys, and the workloads
// and accounts they are bound to. Prisma only; no rules here.
import type { Db } from '@svc/db';
import type { JWK } from 'jose';

export interface AccessKeyRow {
  id: string;
  secretHash: string;
  applicationId: string;
  accountId: string;
  workloadId: string | null;
  status: 'ACTIVE' | 'REVOKED';
}

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
    findAccessKey(identifier: string): Promise<AccessKeyRow | null> {
      return db.accessKey.findUnique({
        where: { identifier },
        select: {
          id: true,
          secretHash: true,
          applicationId: true,
          accountId: true,
          workloadId: true,
          status: true,
        },
      });
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
