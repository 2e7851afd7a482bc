// The combined reads of issuance, each one named prepared statement whose whole text is in this file: the rotation
// read a refresh makes in its one round trip (session, workload authority, issuance snapshot), the issue read
// (snapshot and pairwise subjects), the snapshot alone, and the workload authority rule alone. Rows become named
// values here, once; nothing outside a store sees a column. The fragments never leave the package: the reads of
// other hosts that embed them (native's credential and errand-session reads, the OIDC userinfo read) are stores
// of this package too (credential-reads.ts, session-states.ts, userinfo-reads.ts), behind the core's ports (#37).
import { columnsOf, type Db, gatherOn, paramsOf, runPrepared, type Statement, unnestParams } from '@svc/db';
import { type ClaimGrants, isClaimKey } from '@svc/token-core';
import type { AccountProfile } from '../domain/claim-state';
import type { EmailDomainStanding } from '../domain/email-domain';
import type {
  IssuanceReadsPort,
  IssuanceSnapshot,
  IssueRead,
  IssueReadScope,
  OidcRotationView,
  RotationRead,
  RotationSession,
  SessionStatus,
  WorkloadAuthorityRef,
} from '../domain/ports';
import type { CurrentTerms } from '../domain/terms';

/**
 * The account's email-domain standing as select-list items over an `accounts a` in scope: its SSO link, and
 * `[policy, authority]` of its email domain's policy when that is not ALLOW (one primary-key probe; null when there
 * is none). The domain expression is `emailDomainOf` in SQL.
 */
const EMAIL_DOMAIN_COLUMNS_SQL = `a.sso_authority,
    (SELECT ARRAY[p.policy::text, p.sso_authority] FROM email_domain_policies p
      WHERE p.domain = lower(split_part(a.email, '@', -1)) AND a.email LIKE '%@%' AND p.policy <> 'ALLOW')
      AS email_domain_policy`;

/**
 * The snapshot as select-list items over an `accounts a` in scope, for an application id and a terms epoch given as
 * SQL expressions; `toSnapshot` maps them.
 */
export function snapshotColumnsSql(applicationId: string, epoch: string): string {
  return `a.id AS account_id, a.status AS account_status, a.email, a.email_verified, a.given_name, a.family_name,
    a.picture, a.picture_animated, a.authority_version,
    ${EMAIL_DOMAIN_COLUMNS_SQL},
    EXISTS (SELECT 1 FROM agreement_receipts r WHERE r.account_id = a.id AND r.document_type = 'BASIC_TERMS'
            AND r.acceptance_epoch >= ${epoch}) AS has_receipt,
    (SELECT json_object_agg(g.claim, g.state) FROM claim_grants g
      WHERE g.account_id = a.id AND g.application_id = ${applicationId}) AS grants`;
}

/** The columns of `snapshotColumnsSql`. */
export interface SnapshotColumns {
  account_id: string | null;
  account_status: AccountProfile['status'] | null;
  email: string | null;
  email_verified: boolean;
  given_name: string | null;
  family_name: string | null;
  picture: string | null;
  picture_animated: string | null;
  authority_version: number;
  sso_authority: string | null;
  email_domain_policy: (string | null)[] | null;
  has_receipt: boolean;
  grants: Record<string, string> | null;
}

function toEmailDomainStanding(row: SnapshotColumns): EmailDomainStanding | null {
  const [policy, requiredAuthority] = row.email_domain_policy ?? [];
  if (policy !== 'BLOCK' && policy !== 'REQUIRE_SSO') return null;
  return { policy, requiredAuthority: requiredAuthority ?? null, accountAuthority: row.sso_authority };
}

/** The snapshot of a row (null account when the account does not exist). */
export function toSnapshot(
  row: SnapshotColumns | undefined,
  terms: CurrentTerms | undefined,
): IssuanceSnapshot {
  if (!row?.account_id || !row.account_status)
    return { account: null, hasReceipt: false, grants: {}, emailDomain: null };
  const grants: ClaimGrants = {};
  for (const [claim, state] of Object.entries(row.grants ?? {})) {
    if (isClaimKey(claim) && (state === 'GRANTED' || state === 'DENIED')) grants[claim] = state;
  }
  return {
    account: {
      id: row.account_id,
      status: row.account_status,
      email: row.email,
      emailVerified: row.email_verified,
      givenName: row.given_name,
      familyName: row.family_name,
      picture: row.picture,
      pictureAnimated: row.picture_animated,
      authorityVersion: row.authority_version,
    },
    hasReceipt: !terms || row.has_receipt,
    grants,
    emailDomain: toEmailDomainStanding(row),
  };
}

/**
 * Whether a workload session is still authoritative, over four SQL expressions naming the session's workload,
 * generation, actor subject and credential: the workload active at the same generation, its pairwise actor subject
 * not rotated away, and the credential that started the session still active (always true for account sessions).
 */
export function workloadAuthoritySql(c: {
  workloadId: string;
  generation: string;
  actorSubject: string;
  credentialId: string;
}): string {
  return `(${c.workloadId} IS NULL OR (
    EXISTS (SELECT 1 FROM workloads w WHERE w.id = ${c.workloadId} AND w.status = 'ACTIVE'
            AND w.generation = ${c.generation})
    AND EXISTS (SELECT 1 FROM sector_subjects x WHERE x.subject = ${c.actorSubject} AND x.retired_at IS NULL)
    AND (${c.credentialId} IS NULL OR COALESCE(
      (SELECT k.status::text FROM access_keys k WHERE k.id = ${c.credentialId}::uuid),
      (SELECT p.status::text FROM public_keys p WHERE p.id = ${c.credentialId}::uuid),
      'ACTIVE') = 'ACTIVE')))`;
}

/** The rule over the session row aliased `s` (the rotation read embeds it, and so does the native host's read). */
export const SESSION_WORKLOAD_AUTHORITY_SQL = workloadAuthoritySql({
  workloadId: 's.workload_id',
  generation: 's.workload_generation',
  actorSubject: 's.actor_subject',
  credentialId: 's.source_credential_id',
});

// ---- The rotation read (refresh) ----

interface RotationRow extends SnapshotColumns {
  id: string;
  application_id: string;
  protocol: RotationSession['protocol'];
  auth_method: string;
  subject: string;
  actor_subject: string | null;
  status: SessionStatus;
  revoked_reason: string | null;
  current_version: number;
  current_jti: string;
  access_ttl: number;
  refresh_ttl: number;
  expires_at: Date;
  rotated_at: Date | null;
  retry_until: Date | null;
  session_authority_version: number | null;
  auth_time: Date;
  scope: string | null;
  /** `[oidc_client_id, acr, dpop_jkt, id_token_sid, ...amr]` of an OIDC session's oidc_sessions row; null otherwise. */
  oidc: (string | null)[] | null;
  read_at: Date;
  workload_ok: boolean;
}

/**
 * The session, workload authority and the issuance snapshot, for every rotation that reads in the same event-loop
 * turn: one round trip, one row per input (all columns null when the session does not exist), in input order. An
 * OIDC session also brings its oidc_sessions row (client, amr, acr, DPoP key), which the OIDC host's refresh grant checks and
 * its ID token carries, so that grant makes exactly the round trips of a session-host refresh. It is a subquery
 * under CASE, not a join, so that no other session probes that table (a join filter would probe, then discard).
 */
const READ_ROTATIONS: Statement = {
  name: 'rotation_read_v13',
  text: `SELECT s.id, s.application_id, s.protocol, s.auth_method, s.subject, s.actor_subject,
      s.status, s.revoked_reason, s.current_version, s.current_jti, s.access_ttl, s.refresh_ttl, s.expires_at,
      s.rotated_at, s.retry_until, s.authority_version AS session_authority_version, s.auth_time, s.scope,
      CASE WHEN s.protocol = 'OIDC' THEN (SELECT ARRAY[o.oidc_client_id::text, o.acr, o.dpop_jkt, o.id_token_sid] || o.amr
        FROM oidc_sessions o WHERE o.sid = s.id) END AS oidc,
      statement_timestamp() AS read_at,
      ${SESSION_WORKLOAD_AUTHORITY_SQL} AS workload_ok,
      ${snapshotColumnsSql('s.application_id', 'q.epoch')}
    FROM ${unnestParams(['text', 'int'])} WITH ORDINALITY AS q(sid, epoch, ord)
    LEFT JOIN sessions s ON s.id = q.sid
    LEFT JOIN accounts a ON a.id = s.account_id
    ORDER BY q.ord`,
};

interface RotationReadInput {
  sid: string;
  epoch: number;
  terms: CurrentTerms | undefined;
}

function toOidcView(oidc: (string | null)[] | null): OidcRotationView | null {
  if (!oidc?.[0]) return null;
  return {
    oidcClientId: oidc[0],
    acr: oidc[1] ?? null,
    dpopJkt: oidc[2] ?? null,
    idTokenSid: oidc[3] ?? null,
    amr: oidc.slice(4) as string[],
  };
}

function toRotationRead(row: RotationRow, terms: CurrentTerms | undefined): RotationRead {
  return {
    session: {
      id: row.id,
      applicationId: row.application_id,
      protocol: row.protocol,
      authMethod: row.auth_method,
      subject: row.subject,
      actorSubject: row.actor_subject,
      status: row.status,
      revokedReason: row.revoked_reason,
      currentVersion: row.current_version,
      currentJti: row.current_jti,
      accessTtl: row.access_ttl,
      refreshTtl: row.refresh_ttl,
      expiresAt: row.expires_at,
      rotatedAt: row.rotated_at,
      retryUntil: row.retry_until,
      authorityVersion: row.session_authority_version,
      authTime: row.auth_time,
      scope: row.scope,
    },
    oidc: toOidcView(row.oidc),
    workloadOk: row.workload_ok,
    snapshot: toSnapshot(row, terms),
    readAt: row.read_at,
  };
}

const readRotations = gatherOn(async (db, inputs: RotationReadInput[]) => {
  const rows = await runPrepared<RotationRow | { id: null }>(
    db,
    READ_ROTATIONS,
    columnsOf(inputs, ['sid', 'epoch']),
  );
  return rows.map((r, i) => (r.id === null ? undefined : toRotationRead(r as RotationRow, inputs[i]!.terms)));
});

/** The rotation read of one session against the current terms, gathered per event-loop turn (see `gather`). */
function readRotation(
  db: Db,
  sid: string,
  terms: CurrentTerms | undefined,
): Promise<RotationRead | undefined> {
  return readRotations(db, { sid, epoch: terms?.acceptanceEpoch ?? 0, terms });
}

// ---- The issue read (a new session) ----

const currentSubjectSql = (sectorId: string, kind: string, id: string) =>
  `(SELECT x.subject FROM sector_subjects x WHERE x.sector_id = ${sectorId} AND x.principal_kind = ${kind}
     AND x.principal_id = ${id} AND x.retired_at IS NULL ORDER BY x.generation DESC LIMIT 1)`;

/**
 * The issue read as select-list items over an `accounts a` in scope, for SQL expressions naming the application,
 * terms epoch, sector and the workload (kind and id; NULL for an account): a host that looks up a credential reads
 * it in the same statement and maps it with `toIssueRead`.
 */
export function issueReadColumnsSql(c: {
  applicationId: string;
  epoch: string;
  sectorId: string;
  workloadKind: string;
  workloadId: string;
}): string {
  return `${snapshotColumnsSql(c.applicationId, c.epoch)},
      ${currentSubjectSql(c.sectorId, `'ACCOUNT'`, 'a.id')} AS subject,
      ${currentSubjectSql(c.sectorId, c.workloadKind, c.workloadId)} AS actor_subject`;
}

/** The columns of `issueReadColumnsSql`. */
export type IssueReadColumns = SnapshotColumns & { subject: string | null; actor_subject: string | null };

export function toIssueRead(row: IssueReadColumns | undefined, terms: CurrentTerms | undefined): IssueRead {
  return {
    snapshot: toSnapshot(row, terms),
    subject: row?.subject ?? null,
    actorSubject: row?.actor_subject ?? null,
    terms,
  };
}

// $1 is the account; the fragment's inputs follow it.
const ISSUE_READ_INPUTS = paramsOf(
  {
    applicationId: 'uuid',
    epoch: 'int',
    sectorId: 'uuid',
    workloadKind: '"PrincipalKind"',
    workloadId: 'uuid',
  },
  2,
);

const READ_FOR_ISSUE: Statement = {
  name: 'issue_read_v3',
  text: `SELECT ${issueReadColumnsSql(ISSUE_READ_INPUTS)}
    FROM accounts a WHERE a.id = $1::uuid`,
};

/** The issue read of an account (and its workload, if any) under an application and its sector. */
async function readForIssue(
  db: Db,
  scope: IssueReadScope,
  terms: CurrentTerms | undefined,
): Promise<IssueRead> {
  const [row] = await runPrepared<IssueReadColumns>(db, READ_FOR_ISSUE, [
    scope.accountId,
    scope.applicationId,
    terms?.acceptanceEpoch ?? 0,
    scope.sectorId,
    scope.workload?.kind ?? null,
    scope.workload?.id ?? null,
  ]);
  return toIssueRead(row, terms);
}

// ---- The snapshot alone, and the workload authority rule alone ----

const SNAPSHOT: Statement = {
  name: 'issuance_snapshot_v2',
  text: `SELECT ${snapshotColumnsSql('$2::uuid', '$3::int')} FROM accounts a WHERE a.id = $1::uuid`,
};

async function loadIssuanceSnapshot(
  db: Db,
  accountId: string,
  applicationId: string,
  terms: CurrentTerms | undefined,
): Promise<IssuanceSnapshot> {
  const rows = await runPrepared<SnapshotColumns>(db, SNAPSHOT, [
    accountId,
    applicationId,
    terms?.acceptanceEpoch ?? 0,
  ]);
  return toSnapshot(rows[0], terms);
}

const WORKLOAD_AUTHORITY: Statement = {
  name: 'workload_authority_v1',
  text: `SELECT ${workloadAuthoritySql(
    paramsOf({ workloadId: 'uuid', generation: 'int', actorSubject: 'text', credentialId: 'text' }),
  )} AS ok`,
};

/** The workload authority rule over a workload session's references. */
async function readWorkloadAuthority(db: Db, ref: WorkloadAuthorityRef): Promise<boolean> {
  const [row] = await runPrepared<{ ok: boolean }>(db, WORKLOAD_AUTHORITY, [
    ref.workloadId,
    ref.workloadGeneration,
    ref.actorSubject,
    ref.sourceCredentialId,
  ]);
  return row?.ok === true;
}

/** The issuance reads over one database (the rotation read shares its batches with every caller on it). */
export function createIssuanceReadsStore(db: Db): IssuanceReadsPort {
  return {
    readRotation: (sid, terms) => readRotation(db, sid, terms),
    readForIssue: (scope, terms) => readForIssue(db, scope, terms),
    loadIssuanceSnapshot: (accountId, applicationId, terms) =>
      loadIssuanceSnapshot(db, accountId, applicationId, terms),
    readWorkloadAuthority: (ref) => readWorkloadAuthority(db, ref),
  };
}
