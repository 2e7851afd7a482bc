// Store of the credentials a host's direct issue accepts (native's access keys and public keys), each read in one
// statement together with the workload it is bound to and the issue read of its principal, so a direct issue reads
// once. No rules here. The access-key lookup is shared by the lookups of one event-loop turn (hot path). It lives
// with the issuance stores because its statements embed the issue read's columns (issuance-reads.ts): the host
// reaches it through the CredentialReads port, never through the core's SQL (#37). Statement names and texts are
// the ones native's own store had, so PostgreSQL's plans and the hot path's cost are unchanged.
import { columnsOf, type Db, gather, runPrepared, type Statement, unnestParams } from '@svc/db';
import type { JWK } from 'jose';
import type { CredentialReads, WorkloadRow } from '../domain/credential-reads';
import { type IssueReadColumns, issueReadColumnsSql, toIssueRead } from './issuance-reads';

/** The columns both lookups share: the key's binding, its workload and the issue read. */
type CredentialColumns = IssueReadColumns & {
  id: string;
  application_id: string | null;
  key_sector_id: string | null;
  key_account_id: string;
  workload_id: string | null;
  status: 'ACTIVE' | 'REVOKED';
  w_id: string | null;
  w_kind: WorkloadRow['kind'] | null;
  w_owner_account_id: string | null;
  w_status: WorkloadRow['status'] | null;
  w_generation: number | null;
};

/** The select list both lookups share, over `k` (the key), `w` (its workload), `a` (its account) and `q`. */
const CREDENTIAL_COLUMNS_SQL = `k.id, k.application_id, k.sector_id AS key_sector_id, k.account_id AS key_account_id, k.workload_id, k.status,
      w.id AS w_id, w.kind AS w_kind, w.owner_account_id AS w_owner_account_id, w.status AS w_status,
      w.generation AS w_generation,
      ${issueReadColumnsSql({
        applicationId: 'q.application_id',
        epoch: 'q.epoch',
        sectorId: 'q.sector_id',
        workloadKind: 'w.kind',
        workloadId: 'w.id',
      })}`;

/**
 * The key, its workload and everything issuance reads about its principal, for every lookup of the same
 * event-loop turn: one round trip, one row per input in input order (key columns null for an unknown identifier).
 */
const FIND_ACCESS_KEYS_FOR_ISSUE: Statement = {
  name: 'native_access_key_v7',
  text: `SELECT k.secret_hash, ${CREDENTIAL_COLUMNS_SQL}
    FROM ${unnestParams(['text', 'uuid', 'int', 'uuid'])}
        WITH ORDINALITY AS q(identifier, application_id, epoch, sector_id, ord)
      LEFT JOIN access_keys k ON k.identifier = q.identifier
      LEFT JOIN accounts a ON a.id = k.account_id
      LEFT JOIN workloads w ON w.id = k.workload_id
    ORDER BY q.ord`,
};

/** The same for a public key, by kid (no row for an unknown kid). */
const FIND_PUBLIC_KEY_FOR_ISSUE: Statement = {
  name: 'native_public_key_v2',
  text: `SELECT k.jwk, ${CREDENTIAL_COLUMNS_SQL}
    FROM (SELECT $2::uuid AS application_id, $3::int AS epoch, $4::uuid AS sector_id) q
      JOIN public_keys k ON k.kid = $1::text
      LEFT JOIN accounts a ON a.id = k.account_id
      LEFT JOIN workloads w ON w.id = k.workload_id`,
};

interface KeyLookup {
  identifier: string;
  applicationId: string;
  epoch: number;
  sectorId: string;
}

function toWorkload(row: CredentialColumns): WorkloadRow | null {
  return row.w_id && row.w_kind && row.w_owner_account_id && row.w_status && row.w_generation !== null
    ? {
        id: row.w_id,
        kind: row.w_kind,
        ownerAccountId: row.w_owner_account_id,
        status: row.w_status,
        generation: row.w_generation,
      }
    : null;
}

/** The binding every key row has, under its own names. */
function bindingOf(row: CredentialColumns) {
  return {
    id: row.id,
    applicationId: row.application_id,
    sectorId: row.key_sector_id,
    accountId: row.key_account_id,
    workloadId: row.workload_id,
    status: row.status,
  };
}

export function createCredentialReadsStore(db: Db): CredentialReads {
  const findAccessKeysForIssue = gather(async (lookups: KeyLookup[]) => {
    const rows = await runPrepared<(CredentialColumns & { secret_hash: string }) | { id: null }>(
      db,
      FIND_ACCESS_KEYS_FOR_ISSUE,
      columnsOf(lookups, ['identifier', 'applicationId', 'epoch', 'sectorId']),
    );
    return rows.map((r) => (r.id === null ? undefined : (r as CredentialColumns & { secret_hash: string })));
  });
  return {
    async findAccessKeyForIssue(identifier, scope) {
      const row = await findAccessKeysForIssue({
        identifier,
        applicationId: scope.applicationId,
        epoch: scope.terms?.acceptanceEpoch ?? 0,
        sectorId: scope.sectorId,
      });
      if (!row) return null;
      return {
        key: { ...bindingOf(row), secretHash: row.secret_hash },
        workload: toWorkload(row),
        read: toIssueRead(row, scope.terms),
      };
    },

    async findPublicKeyForIssue(kid, scope) {
      const [row] = await runPrepared<CredentialColumns & { jwk: JWK }>(db, FIND_PUBLIC_KEY_FOR_ISSUE, [
        kid,
        scope.applicationId,
        scope.terms?.acceptanceEpoch ?? 0,
        scope.sectorId,
      ]);
      if (!row) return null;
      return {
        key: { ...bindingOf(row), jwk: row.jwk },
        workload: toWorkload(row),
        read: toIssueRead(row, scope.terms),
      };
    },
  };
}
