// Store of sessions: the gathered insert of a new session (alone, or together with redeeming its connect inquiry),
// the gathered conditional write that consumes a refresh version, revocation, and the small reads logout and
// connect's refresh make. Hot statements are named prepared statements taking their batch as arrays
// (`unnestParams`; see BENCHMARKS.md); the rest goes through Prisma. The rotation read is in `issuance-reads.ts`.
import { randomUUID } from 'node:crypto';
import { columnsOf, type Db, dbBoundsOf, gatherOn, runPrepared, type Statement, unnestParams } from '@svc/db';
import { REVOCATION_EVENT_REASONS } from '@svc/events';
import { sessionRevokedOutboxSql } from '@svc/events/shared-sql';
import type { ConsumeInput, InsertOutcome, NewSession, SessionsPort, SessionVersion } from '../domain/ports';

/** The fields of `NewSession` in the order of the insert's arrays. */
const INSERT_FIELDS = [
  'id',
  'applicationId',
  'protocol',
  'accountId',
  'workloadId',
  'workloadGeneration',
  'subject',
  'actorSubject',
  'authMethod',
  'sourceCredentialId',
  'accessTtl',
  'refreshTtl',
  'authTime',
  'createdAt',
  'expiresAt',
  'scope',
  'currentJti',
  'expectedAuthority',
] as const satisfies readonly (keyof NewSession)[];

/**
 * The subject ($7, the one session of a redeeming/consuming insert) is still its principal's current pairwise
 * subject, its row share-locked until the insert commits. A reset (rotateSectorSubject) retires that row with an
 * UPDATE: if the reset came first the lock waits for it and the re-checked row is retired, so nothing is
 * inserted; if the insert came first the reset waits for the insert to commit, and the sector's sessions it
 * revokes afterwards include this one. Either way no live session stays under a retired subject.
 */
const SUBJECT_CURRENT = (subject: string) => `EXISTS (SELECT 1 FROM sector_subjects ss
  WHERE ss.subject = ${subject} AND ss.retired_at IS NULL FOR SHARE)`;

/**
 * Inserts sessions at their first refresh version, each only while its subject is current (SUBJECT_CURRENT), its
 * account's authority version is still the expected one (when given) and `guard` holds, which the session keeps
 * (refresh compares the account's against it); the expiry sweep first looks at a session when it would expire.
 * Returns the ids inserted.
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
    WHERE (${guard}) AND ${SUBJECT_CURRENT('v.subject')} AND (v.expected_authority IS NULL OR EXISTS (
      SELECT 1 FROM accounts x WHERE x.id = v.account_id AND x.authority_version = v.expected_authority))
    RETURNING id`;
}

/** The sessions of every issue in the same event-loop turn (gathered; see `insertSession`). */
const INSERT_SESSIONS: Statement = { name: 'issue_insert_v7', text: insertSessionsSql() };

/**
 * One session, inserted only together with its inquiry's move from REALIZED to REDEEMED ($19 the inquiry id, $20
 * the time): the inquiry is redeemed exactly when the session exists. The conditions of the insert (the subject
 * current, the authority version, the inquiry still redeemable and unexpired) are in the UPDATE too, and both parts see one snapshot, so
 * neither happens without the other; two redeems of one inquiry serialize on its row and only one finds it REALIZED.
 */
const INSERT_SESSION_REDEEMING: Statement = {
  name: 'issue_insert_redeeming_v3',
  text: insertSessionsSql(
    'EXISTS (SELECT 1 FROM redeemed)',
    `WITH redeemed AS (
      UPDATE inquiries i SET state = 'REDEEMED', redeemed_at = $20::timestamptz
      WHERE i.id = $19::uuid AND i.state = 'REALIZED' AND i.expires_at > $20::timestamptz
        AND ${SUBJECT_CURRENT('($7::text[])[1]')}
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
  name: 'issue_insert_consuming_device_v2',
  text: insertSessionsSql(
    'EXISTS (SELECT 1 FROM redeemed)',
    `WITH redeemed AS (
      UPDATE device_authorizations d SET state = 'CONSUMED', session_id = ($1::text[])[1]
      WHERE d.id = $19::uuid AND d.state = 'APPROVED' AND d.expires_at > $20::timestamptz
        AND ${SUBJECT_CURRENT('($7::text[])[1]')}
        AND (($18::int[])[1] IS NULL OR EXISTS (
          SELECT 1 FROM accounts x WHERE x.id = d.account_id AND x.authority_version = ($18::int[])[1]))
      RETURNING d.id)`,
  ),
};

async function insertSessions(db: Db, rows: NewSession[]): Promise<boolean[]> {
  const inserted = await runPrepared<{ id: string }>(db, INSERT_SESSIONS, columnsOf(rows, INSERT_FIELDS));
  const ids = new Set(inserted.map((r) => r.id));
  return rows.map((r) => ids.has(r.id));
}

/**
 * Inserts one session, gathered per event-loop turn; false when its condition (the authority version) failed. A
 * statement fails whole, so when a batch fails (a constraint one row broke), each row is tried alone and only the
 * rows that fail alone fail.
 */
const insertSession = gatherOn(async (db, rows: NewSession[]): Promise<InsertOutcome[]> => {
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
async function insertSessionRedeeming(
  db: Db,
  row: NewSession,
  redeemed: { inquiryId: string } | { deviceAuthorizationId: string },
  now: Date,
): Promise<boolean> {
  const [statement, id] =
    'inquiryId' in redeemed
      ? [INSERT_SESSION_REDEEMING, redeemed.inquiryId]
      : [INSERT_SESSION_CONSUMING_DEVICE, redeemed.deviceAuthorizationId];
  const inserted = await runPrepared<{ id: string }>(db, statement, [
    ...columnsOf([row], INSERT_FIELDS),
    id,
    now,
  ]);
  return inserted.length === 1;
}

/**
 * The conditional writes of every rotation consuming in the same turn: each session row is updated only if it
 * still has the presented version as current. It changes no indexed column (sweep_after stays; see the expiry
 * sweep), so PostgreSQL updates each row in place on its page (HOT). Two consumers of one session in one batch
 * match the same row; PostgreSQL updates a row once per statement, so only the one whose jti the row now
 * carries has won.
 *
 * A write also carries a deadline on PostgreSQL's own clock (the read's start plus the statement bound): a write
 * that reaches the server later, because a stall or partition held it on the wire after its client gave up with
 * a 503, changes nothing. Otherwise it would commit a version whose tokens nobody holds, and the client's retry,
 * past the retry window by then, would count as reuse and revoke a healthy family.
 */
const CONSUME_VERSIONS: Statement = {
  name: 'rotation_consume_v8',
  text: `UPDATE sessions s
    SET current_version = v.next, current_jti = v.jti, rotated_at = v.at, expires_at = v.expires,
      retry_until = v.retry_until, scope = COALESCE(v.scope, s.scope)
    FROM ${unnestParams(['text', 'int', 'int', 'timestamptz', 'timestamptz', 'timestamptz', 'text', 'text', 'timestamptz'])}
      AS v(id, presented, next, at, expires, retry_until, jti, scope, deadline)
    WHERE s.id = v.id AND s.current_version = v.presented AND s.status = 'ACTIVE'
      AND (v.deadline IS NULL OR statement_timestamp() < v.deadline)
    RETURNING s.id, s.current_jti`,
};

/** Consumes presented versions in one statement; true for each input whose write won. */
async function consumeVersions(db: Db, inputs: ConsumeInput[]): Promise<boolean[]> {
  const won = await runPrepared<{ id: string; current_jti: string }>(
    db,
    CONSUME_VERSIONS,
    columnsOf(inputs, [
      'sid',
      'presented',
      'next',
      'at',
      'expiresAt',
      'retryUntil',
      'jti',
      'scope',
      'deadline',
    ]),
  );
  const winners = new Set(won.map((w) => `${w.id} ${w.current_jti}`));
  return inputs.map((i) => winners.has(`${i.sid} ${i.jti}`));
}

/** The conditional write of one rotation, gathered per event-loop turn. */
const consumeVersion = gatherOn(consumeVersions);

/**
 * Revokes a session still ACTIVE or SUSPENDED ($1) with a reason ($2) at $3, and in the same statement writes its
 * session-revoked event ($4 the event's reason, $5 the change's txn) for the application when it subscribed: no
 * event without the revocation, no revocation without its event. A session already ended changes nothing and
 * causes no event.
 */
const REVOKE_SESSION: Statement = {
  name: 'revoke_session_v1',
  text: `WITH revoked AS (
      UPDATE sessions SET status = 'REVOKED', revoked_reason = $2, revoked_at = $3
      WHERE id = $1 AND status IN ('ACTIVE', 'SUSPENDED')
      RETURNING id, application_id, subject),
    events AS (${sessionRevokedOutboxSql('revoked', '$4::text', '$5::text')})
    SELECT id FROM revoked`,
};

/** Every live session of an account ($2) under an application ($1), revoked with their events (as REVOKE_SESSION). */
const REVOKE_ACCOUNT_SESSIONS: Statement = {
  name: 'revoke_account_sessions_v1',
  text: `WITH revoked AS (
      UPDATE sessions SET status = 'REVOKED', revoked_reason = $3, revoked_at = $4
      WHERE application_id = $1::uuid AND account_id = $2::uuid AND status IN ('ACTIVE', 'SUSPENDED')
      RETURNING id, application_id, subject),
    events AS (${sessionRevokedOutboxSql('revoked', '$5::text', '$6::text')})
    SELECT id FROM revoked`,
};

/**
 * Every live OIDC session of the sign-in sessions named by their ID tokens' `sid` ($1, oidc_sessions.id_token_sid),
 * whichever client it was issued to, revoked with their events (session-revoked, and each client's back-channel
 * logout token) under one txn ($5): ending a sign-in session logs out every relying party it signed into.
 */
const REVOKE_SIGN_IN_SESSIONS: Statement = {
  name: 'revoke_sign_in_sessions_v1',
  text: `WITH revoked AS (
      UPDATE sessions s SET status = 'REVOKED', revoked_reason = $2, revoked_at = $3
      FROM oidc_sessions o
      WHERE o.sid = s.id AND o.id_token_sid = ANY($1::text[])
        AND s.protocol = 'OIDC' AND s.status IN ('ACTIVE', 'SUSPENDED')
      RETURNING s.id, s.application_id, s.subject),
    events AS (${sessionRevokedOutboxSql('revoked', '$4::text', '$5::text')})
    SELECT id FROM revoked`,
};

/** The session-revoked reason of a revocation, or null when its reason causes no event. */
const eventReasonOf = (reason: string) => REVOCATION_EVENT_REASONS[reason] ?? null;

/** Revokes a session that is still ACTIVE or SUSPENDED (a revoked or expired one stays as it is). */
async function revokeSession(db: Db, sid: string, reason: string, at: Date): Promise<void> {
  await runPrepared(db, REVOKE_SESSION, [sid, reason, at, eventReasonOf(reason), randomUUID()]);
}

/** Revokes every live session of an account under an application; returns the ids revoked. */
async function revokeAccountSessions(
  db: Db,
  applicationId: string,
  accountId: string,
  reason: string,
  at: Date,
): Promise<string[]> {
  const rows = await runPrepared<{ id: string }>(db, REVOKE_ACCOUNT_SESSIONS, [
    applicationId,
    accountId,
    reason,
    at,
    eventReasonOf(reason),
    randomUUID(),
  ]);
  return rows.map((r) => r.id);
}

/** Revokes the live OIDC sessions of the sign-in sessions `idTokenSids`; returns the ids revoked. */
async function revokeSignIns(db: Db, idTokenSids: string[], reason: string, at: Date): Promise<string[]> {
  if (idTokenSids.length === 0) return [];
  const rows = await runPrepared<{ id: string }>(db, REVOKE_SIGN_IN_SESSIONS, [
    idTokenSids,
    reason,
    at,
    eventReasonOf(reason),
    randomUUID(),
  ]);
  return rows.map((r) => r.id);
}

function findSessionVersion(db: Db, sid: string): Promise<SessionVersion | null> {
  return db.session.findUnique({
    where: { id: sid },
    select: {
      id: true,
      applicationId: true,
      status: true,
      expiresAt: true,
      currentVersion: true,
      currentJti: true,
    },
  });
}

/** The sessions store over one database (the gathered statements share their batches with every caller on it). */
export function createSessionsStore(db: Db): SessionsPort {
  return {
    insertSession: (row) => insertSession(db, row),
    insertSessionRedeeming: (row, redeemed, now) => insertSessionRedeeming(db, row, redeemed, now),
    consumeVersion: (input) => consumeVersion(db, input),
    consumeVersions: (inputs) => consumeVersions(db, inputs),
    revokeSession: (sid, reason, at) => revokeSession(db, sid, reason, at),
    revokeAccountSessions: (applicationId, accountId, reason, at) =>
      revokeAccountSessions(db, applicationId, accountId, reason, at),
    revokeSignIns: (idTokenSids, reason, at) => revokeSignIns(db, idTokenSids, reason, at),
    findSessionVersion: (sid) => findSessionVersion(db, sid),
    get statementTimeoutMs() {
      return dbBoundsOf(db).statementTimeoutMs;
    },
  };
}
