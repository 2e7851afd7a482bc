// The issuance core every host shares: checks, then a new session with its first access and refresh tokens.
import { type Db, gatherOn, runPrepared, type Statement, unnestParams } from '@svc/db';
import { ServiceError } from '@svc/platform';
import {
  type ClaimView,
  foldTtls,
  mintAccessToken,
  mintRefreshToken,
  newSid,
  type Signer,
  type TtlLayer,
} from '@svc/token-core';
import type { ApplicationContext } from './application-context';
import { checkApplication, checkSnapshot } from './checks';
import type { IssuanceDeps } from './deps';
import { newRefreshJti } from './refresh-jti';
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
   * AuthorizationArtifactStale (the insert is conditional on it). Without one, the version the issuance checks
   * read is the expected one. The session keeps it: a refresh after it changed is AuthorizationArtifactStale.
   */
  expectedAuthorityVersion?: number;
  /**
   * The connect inquiry this issue redeems: the session is inserted only together with the inquiry's move from
   * REALIZED to REDEEMED, in one statement. When the inquiry is no longer redeemable (redeemed by a concurrent
   * request, or expired), or the authority version changed, nothing is written and AuthorizationArtifactStale is
   * thrown; the caller tells these apart from the inquiry row.
   */
  redeemsInquiry?: { id: string };
  /**
   * The device authorization this issue consumes: the session is inserted only together with the authorization's
   * move from APPROVED to CONSUMED, in one statement, as for an inquiry. When it is no longer consumable (consumed
   * by a concurrent poll, or expired), or the authority version changed, nothing is written and
   * AuthorizationArtifactStale is thrown; the caller tells these apart from the authorization's row.
   */
  redeemsDeviceAuthorization?: { id: string };
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
  name: 'issue_read_v3',
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
 * Inserts sessions at their first refresh version, each only while its account's authority version is still the
 * expected one (when given) and `guard` holds, which the session keeps (refresh compares the account's against it);
 * the expiry sweep first looks at a session when it would expire. Returns the ids inserted.
 */
function insertSessionsSql(guard = 'TRUE', prefix = ''): string {
  return `${prefix} INSERT INTO sessions (id, application_id, protocol, account_id, workload_id, workload_generation,
      subject, actor_subject, auth_method, source_credential_id, current_version, current_jti, access_ttl,
      refresh_ttl, auth_time, created_at, expires_at, sweep_after, scope, authority_version)
    SELECT v.id, v.application_id, v.protocol, v.account_id, v.workload_id, v.workload_generation, v.subject,
      v.actor_subject, v.auth_method, v.source_credential_id, 1, v.current_jti, v.access_ttl, v.refresh_ttl,
      v.auth_time, v.created_at, v.expires_at, v.expires_at, v.scope, v.expected_authority
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
    WHERE (${guard}) AND (v.expected_authority IS NULL OR EXISTS (
      SELECT 1 FROM accounts x WHERE x.id = v.account_id AND x.authority_version = v.expected_authority))
    RETURNING id`;
}

/** The sessions of every issue in the same event-loop turn (gathered; see `insertSession`). */
const INSERT_SESSIONS: Statement = { name: 'issue_insert_v6', text: insertSessionsSql() };

/**
 * One session, inserted only together with its inquiry's move from REALIZED to REDEEMED ($19 the inquiry id, $20
 * the time): the inquiry is redeemed exactly when the session exists. Both conditions of the insert (the authority
 * version, the inquiry still redeemable and unexpired) are in the UPDATE too, and both parts see one snapshot, so
 * neither happens without the other; two redeems of one inquiry serialize on its row and only one finds it REALIZED.
 */
const INSERT_SESSION_REDEEMING: Statement = {
  name: 'issue_insert_redeeming_v2',
  text: insertSessionsSql(
    'EXISTS (SELECT 1 FROM redeemed)',
    `WITH redeemed AS (
      UPDATE inquiries i SET state = 'REDEEMED', redeemed_at = $20::timestamptz
      WHERE i.id = $19::uuid AND i.state = 'REALIZED' AND i.expires_at > $20::timestamptz
        AND (($18::int[])[1] IS NULL OR EXISTS (
          SELECT 1 FROM accounts x WHERE x.id = i.account_id AND x.authority_version = ($18::int[])[1]))
      RETURNING i.id)`,
  ),
};

/**
 * One session, inserted only together with its device authorization's move from APPROVED to CONSUMED ($19 the
 * authorization id, $20 the time), which records the session id: the same shape and reasoning as
 * INSERT_SESSION_REDEEMING, so two polls of one approved authorization (on any replicas) serialize on its row and
 * only one finds it APPROVED.
 */
const INSERT_SESSION_CONSUMING_DEVICE: Statement = {
  name: 'issue_insert_consuming_device_v1',
  text: insertSessionsSql(
    'EXISTS (SELECT 1 FROM redeemed)',
    `WITH redeemed AS (
      UPDATE device_authorizations d SET state = 'CONSUMED', session_id = ($1::text[])[1]
      WHERE d.id = $19::uuid AND d.state = 'APPROVED' AND d.expires_at > $20::timestamptz
        AND (($18::int[])[1] IS NULL OR EXISTS (
          SELECT 1 FROM accounts x WHERE x.id = d.account_id AND x.authority_version = ($18::int[])[1]))
      RETURNING d.id)`,
  ),
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

const columnsOfInserts = (rows: SessionInsert[]) =>
  Array.from({ length: 18 }, (_, c) => rows.map((r) => r[c]));

async function insertSessions(db: Db, rows: SessionInsert[]): Promise<boolean[]> {
  const inserted = await runPrepared<{ id: string }>(db, INSERT_SESSIONS, columnsOfInserts(rows));
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

/**
 * Inserts one session together with redeeming its inquiry (INSERT_SESSION_REDEEMING) or consuming its device
 * authorization (INSERT_SESSION_CONSUMING_DEVICE); false when neither happened.
 */
async function insertRedeeming(
  db: Db,
  statement: Statement,
  row: SessionInsert,
  redeemedId: string,
  now: Date,
): Promise<boolean> {
  const inserted = await runPrepared<{ id: string }>(db, statement, [
    ...columnsOfInserts([row]),
    redeemedId,
    now,
  ]);
  return inserted.length === 1;
}

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
  const { account, claims } = await checkSnapshot(deps, app, toSnapshot(row, terms), terms, {
    expectedAuthorityVersion: input.expectedAuthorityVersion,
  });
  const authorityVersion = input.expectedAuthorityVersion ?? account.authorityVersion;
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
  const refreshJti = newRefreshJti(deps.kek, sid, 1);
  const common = { issuer: deps.issuer, audience: app.anchor, sid, iat };
  const [access, refresh] = await Promise.all([
    mintAccessToken(signer, { ...common, ttlSeconds: accessTtl, subject, actorSubject }),
    mintRefreshToken(signer, { ...common, ttlSeconds: refreshTtl, jti: refreshJti, rotationVersion: 1 }),
  ]);
  const insert: SessionInsert = [
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
    authorityVersion,
  ];
  const inserted = input.redeemsInquiry
    ? await insertRedeeming(deps.db, INSERT_SESSION_REDEEMING, insert, input.redeemsInquiry.id, now)
    : input.redeemsDeviceAuthorization
      ? await insertRedeeming(
          deps.db,
          INSERT_SESSION_CONSUMING_DEVICE,
          insert,
          input.redeemsDeviceAuthorization.id,
          now,
        )
      : await insertSession(deps.db, insert);
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
