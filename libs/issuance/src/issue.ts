// The issuance core every host shares: checks, then a new session with its first access and refresh tokens.
import { type Db, gatherOn, runPrepared, type Statement, unnestParams } from '@svc/db';
import { ServiceError } from '@svc/platform';
import {
  type ClaimView,
  foldTtls,
  mintAccessToken,
  mintRefreshToken,
  newJti,
  newSid,
  type Signer,
  type TtlLayer,
} from '@svc/token-core';
import type { ApplicationContext } from './application-context';
import { checkApplication, checkSnapshot } from './checks';
import type { IssuanceDeps } from './deps';
import { resolveSectorSubject } from './sector-subjects';
import { currentTermsCached, type SnapshotRow, snapshotColumnsSql, toSnapshot } from './snapshot';
import type { CurrentTerms } from './terms';

export type Principal =
  | { kind: 'ACCOUNT'; accountId: string }
  | { kind: 'AGENT' | 'AUTOMATION'; accountId: string; workloadId: string; workloadGeneration: number };

export interface IssueSessionInput {
  application: ApplicationContext;
  principal: Principal;
  /** The authentication method that admitted the principal (e.g. ACCESS_KEY_DIRECT, PASSKEY_USERNAMELESS). */
  authMethod: string;
  /** Extra TTL layers beyond the application's rule for authMethod (e.g. inquiry constraints). */
  ttlLayers?: TtlLayer[];
  protocol?: 'APPLICATION' | 'OIDC';
  sourceCredentialId?: string;
  authTime?: Date;
  scope?: string;
  /**
   * The account's authority version seen at authentication; a change since then, up to the session's insert, is
   * AuthorizationArtifactStale (the insert is conditional on it).
   */
  expectedAuthorityVersion?: number;
  /** The issue read, when the caller read it in the same statement as its credential (`issueReadColumnsSql`). */
  read?: IssueRead;
}

/** An issue read taken by the caller, with the terms whose epoch it was read against. */
export interface IssueRead {
  row: IssueReadRow;
  terms: CurrentTerms | undefined;
}

/** What issuance reads: the snapshot and the principal's current pairwise subjects in the sector. */
export type IssueReadRow = SnapshotRow & { subject: string | null; actor_subject: string | null };

export interface IssuedSession {
  sid: string;
  subject: string;
  actorSubject?: string;
  claims: ClaimView;
  accessToken: string;
  refreshToken: string;
  accessTtl: number;
  refreshTtl: number;
}

export async function activeSigner(deps: IssuanceDeps, applicationId: string): Promise<Signer> {
  const signer = await deps.keyRing.signer(applicationId);
  if (!signer) throw new ServiceError('TemporarilyUnavailable', 503, { headers: { 'Retry-After': '5' } });
  return signer;
}

/** TTLs from the application's rules for the method, any extra layers, folded as the spec's Limits say. */
export function ttlsFor(app: ApplicationContext, authMethod: string, extra: TtlLayer[] = []) {
  const ruleLayers = app.authRules
    .filter((r) => r.method === authMethod)
    .map((r) => ({ accessTokenTtlSeconds: r.accessTtl, refreshTokenTtlSeconds: r.refreshTtl }));
  return foldTtls([...ruleLayers, ...extra]);
}

const currentSubjectSql = (sectorId: string, kind: string, id: string) =>
  `(SELECT x.subject FROM sector_subjects x WHERE x.sector_id = ${sectorId} AND x.principal_kind = ${kind}
     AND x.principal_id = ${id} AND x.retired_at IS NULL ORDER BY x.generation DESC LIMIT 1)`;

/**
 * The issue read (`IssueReadRow`) as select-list items over an `accounts a` in scope, for SQL expressions naming the
 * application, terms epoch, sector and the workload (kind and id; NULL for an account); a host that looks up a
 * credential reads it in the same statement.
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

const READ_FOR_ISSUE: Statement = {
  name: 'issue_read_v2',
  text: `SELECT ${issueReadColumnsSql({
    applicationId: '$2::uuid',
    epoch: '$3::int',
    sectorId: '$4::uuid',
    workloadKind: '$5::"PrincipalKind"',
    workloadId: '$6::uuid',
  })}
    FROM accounts a WHERE a.id = $1::uuid`,
};

/**
 * The sessions of every issue in the same event-loop turn, each at its first refresh version and only while its
 * account's authority version is still the expected one (when given); the expiry sweep first looks at a session
 * when it would expire. Returns the ids inserted.
 */
const INSERT_SESSIONS: Statement = {
  name: 'issue_insert_v5',
  text: `INSERT INTO sessions (id, application_id, protocol, account_id, workload_id, workload_generation, subject,
      actor_subject, auth_method, source_credential_id, current_version, current_jti, access_ttl, refresh_ttl,
      auth_time, created_at, expires_at, sweep_after, scope)
    SELECT v.id, v.application_id, v.protocol, v.account_id, v.workload_id, v.workload_generation, v.subject,
      v.actor_subject, v.auth_method, v.source_credential_id, 1, v.current_jti, v.access_ttl, v.refresh_ttl,
      v.auth_time, v.created_at, v.expires_at, v.expires_at, v.scope
    FROM ${unnestParams([
      'text',
      'uuid',
      '"SessionProtocol"',
      'uuid',
      'uuid',
      'int',
      'text',
      'text',
      'text',
      'text',
      'int',
      'int',
      'timestamptz',
      'timestamptz',
      'timestamptz',
      'text',
      'text',
      'int',
    ])}
      AS v(id, application_id, protocol, account_id, workload_id, workload_generation, subject, actor_subject,
        auth_method, source_credential_id, access_ttl, refresh_ttl, auth_time, created_at, expires_at, scope,
        current_jti, expected_authority)
    WHERE v.expected_authority IS NULL OR EXISTS (
      SELECT 1 FROM accounts x WHERE x.id = v.account_id AND x.authority_version = v.expected_authority)
    RETURNING id`,
};

/** One session row to insert, in the order of INSERT_SESSIONS' arrays. */
export type SessionInsert = [
  id: string,
  applicationId: string,
  protocol: string,
  accountId: string,
  workloadId: string | null,
  workloadGeneration: number | null,
  subject: string,
  actorSubject: string | null,
  authMethod: string,
  sourceCredentialId: string | null,
  accessTtl: number,
  refreshTtl: number,
  authTime: Date,
  createdAt: Date,
  expiresAt: Date,
  scope: string | null,
  currentJti: string,
  expectedAuthority: number | null,
];

export type InsertOutcome = boolean | { failed: unknown };

async function insertSessions(db: Db, rows: SessionInsert[]): Promise<boolean[]> {
  const columns = Array.from({ length: 18 }, (_, c) => rows.map((r) => r[c]));
  const inserted = await runPrepared<{ id: string }>(db, INSERT_SESSIONS, columns);
  const ids = new Set(inserted.map((r) => r.id));
  return rows.map((r) => ids.has(r[0]));
}

/**
 * Inserts one session, gathered per event-loop turn. A statement fails whole, so when a batch fails (a constraint
 * one row broke), each row is tried alone and only the rows that fail alone fail.
 */
export const insertSession = gatherOn(async (db, rows: SessionInsert[]): Promise<InsertOutcome[]> => {
  try {
    return await insertSessions(db, rows);
  } catch (err) {
    if (rows.length === 1) return [{ failed: err }];
    return Promise.all(
      rows.map((row) =>
        insertSessions(db, [row]).then(
          ([ok]) => ok!,
          (failed: unknown) => ({ failed }),
        ),
      ),
    );
  }
});

export async function issueSession(deps: IssuanceDeps, input: IssueSessionInput): Promise<IssuedSession> {
  const { application: app, principal } = input;
  checkApplication(app);
  // A caller's read was taken against its terms; checking it against terms fetched again could mix two epochs.
  const terms = input.read ? input.read.terms : await currentTermsCached(deps.db);
  const workload = principal.kind === 'ACCOUNT' ? undefined : principal;
  const row =
    input.read?.row ??
    (
      await runPrepared<IssueReadRow>(deps.db, READ_FOR_ISSUE, [
        principal.accountId,
        app.id,
        terms?.acceptanceEpoch ?? 0,
        app.sectorId,
        workload?.kind ?? null,
        workload?.workloadId ?? null,
      ])
    )[0];
  const { claims } = await checkSnapshot(deps, app, toSnapshot(row, terms), terms, {
    expectedAuthorityVersion: input.expectedAuthorityVersion,
  });
  const subject =
    row?.subject ??
    (await resolveSectorSubject(deps.db, deps.subjectSecret, app.sectorId, {
      kind: 'ACCOUNT',
      id: principal.accountId,
    }));
  const actorSubject = workload
    ? (row?.actor_subject ??
      (await resolveSectorSubject(deps.db, deps.subjectSecret, app.sectorId, {
        kind: workload.kind,
        id: workload.workloadId,
      })))
    : undefined;
  const { accessTtl, refreshTtl } = ttlsFor(app, input.authMethod, input.ttlLayers);
  const signer = await activeSigner(deps, app.id);
  const sid = newSid();
  const now = deps.now();
  const iat = Math.floor(now.getTime() / 1000);
  const refreshJti = newJti();
  const common = { issuer: deps.issuer, audience: app.anchor, sid, iat };
  const [access, refresh] = await Promise.all([
    mintAccessToken(signer, { ...common, ttlSeconds: accessTtl, subject, actorSubject }),
    mintRefreshToken(signer, { ...common, ttlSeconds: refreshTtl, jti: refreshJti, rotationVersion: 1 }),
  ]);
  const inserted = await insertSession(deps.db, [
    sid,
    app.id,
    input.protocol ?? 'APPLICATION',
    principal.accountId,
    workload?.workloadId ?? null,
    workload?.workloadGeneration ?? null,
    subject,
    actorSubject ?? null,
    input.authMethod,
    input.sourceCredentialId ?? null,
    accessTtl,
    refreshTtl,
    input.authTime ?? now,
    now,
    new Date(refresh.exp * 1000),
    input.scope ?? null,
    refreshJti,
    input.expectedAuthorityVersion ?? null,
  ]);
  if (typeof inserted === 'object') throw inserted.failed;
  if (!inserted) throw new ServiceError('AuthorizationArtifactStale', 409);
  return {
    sid,
    subject,
    actorSubject,
    claims,
    accessToken: access.token,
    refreshToken: refresh.token,
    accessTtl,
    refreshTtl,
  };
}
