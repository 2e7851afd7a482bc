// Store of the credentials direct issue accepts: access keys (hashed secrets), public keys, and the workloads
// and accounts they are bound to. No rules here; the access-key lookup is a prepared statement shared by the
// lookups of one event-loop turn (hot path).
import { columnsOf, type Db, gather, runPrepared, type Statement, unnestParams } from '@svc/db';
import { type IssueReadRow, issueReadColumnsSql } from '@svc/issuance';
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

/** An access key with its workload (null when it has none or the workload is gone) and the issue read. */
export interface AccessKeyForIssue {
  key: AccessKeyRow;
  workload: WorkloadRow | null;
  read: IssueReadRow;
}

/** Where the issue read is taken: the application named in the request, its sector and the terms epoch. */
export interface IssueReadScope {
  applicationId: string;
  sectorId: string;
  epoch: number;
}

type AccessKeyForIssueRow = IssueReadRow & {
  id: string;
  secret_hash: string;
  application_id: string;
  key_account_id: string;
  workload_id: string | null;
  status: AccessKeyRow['status'];
  w_id: string | null;
  w_kind: WorkloadRow['kind'] | null;
  w_owner_account_id: string | null;
  w_status: WorkloadRow['status'] | null;
  w_generation: number | null;
};

/**
 * The key, its workload and everything issuance reads about its principal, for every lookup of the same
 * event-loop turn: one round trip, one row per input in input order (key columns null for an unknown identifier).
 */
const FIND_ACCESS_KEYS_FOR_ISSUE: Statement = {
  name: 'native_access_key_v5',
  text: `SELECT k.id, k.secret_hash, k.application_id, k.account_id AS key_account_id, k.workload_id, k.status,
      w.id AS w_id, w.kind AS w_kind, w.owner_account_id AS w_owner_account_id, w.status AS w_status,
      w.generation AS w_generation,
      ${issueReadColumnsSql({
        applicationId: 'q.application_id',
        epoch: 'q.epoch',
        sectorId: 'q.sector_id',
        workloadKind: 'w.kind',
        workloadId: 'w.id',
      })}
    FROM ${unnestParams(['text', 'uuid', 'int', 'uuid'])}
        WITH ORDINALITY AS q(identifier, application_id, epoch, sector_id, ord)
      LEFT JOIN access_keys k ON k.identifier = q.identifier
      LEFT JOIN accounts a ON a.id = k.account_id
      LEFT JOIN workloads w ON w.id = k.workload_id
    ORDER BY q.ord`,
};

type KeyLookup = IssueReadScope & { identifier: string };

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
  const findAccessKeysForIssue = gather(async (lookups: KeyLookup[]) => {
    const rows = await runPrepared<AccessKeyForIssueRow | { id: null }>(
      db,
      FIND_ACCESS_KEYS_FOR_ISSUE,
      columnsOf(lookups, ['identifier', 'applicationId', 'epoch', 'sectorId']),
    );
    return rows.map((r) => (r.id === null ? undefined : (r as AccessKeyForIssueRow)));
  });
  return {
    async findAccessKeyForIssue(
      identifier: string,
      scope: IssueReadScope,
    ): Promise<AccessKeyForIssue | null> {
      const row = await findAccessKeysForIssue({ identifier, ...scope });
      if (!row) return null;
      const key: AccessKeyRow = {
        id: row.id,
        secretHash: row.secret_hash,
        applicationId: row.application_id,
        accountId: row.key_account_id,
        workloadId: row.workload_id,
        status: row.status,
        authorityVersion: row.account_id ? row.authority_version : undefined,
      };
      const workload: WorkloadRow | null =
        row.w_id && row.w_kind && row.w_owner_account_id && row.w_status && row.w_generation !== null
          ? {
              id: row.w_id,
              kind: row.w_kind,
              ownerAccountId: row.w_owner_account_id,
              status: row.w_status,
              generation: row.w_generation,
            }
          : null;
      return { key, workload, read: row };
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
