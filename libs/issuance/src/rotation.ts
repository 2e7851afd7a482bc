// rotateRefreshToken: strict rotation of a session's refresh token. The presented version is consumed by one
// conditional write (current_version = presented), so across every replica exactly one rotation wins. With a
// retry allowance (session host), a near-simultaneous retry of the same rotation gets the pair already issued:
// every claim of that pair follows from the session row (rotated_at is its iat, current_jti its jti, the access
// jti derived from it) and RS256 signatures are deterministic, so it is minted again byte for byte and no token is
// ever stored. Any other reuse revokes the whole family. A rotation that read its version as current but lost the
// write, where the allowance cannot hand out the winner's pair, is a conflict (the session host's empty 401). One
// read and one write (a HOT update of the session row, no index entry changes) per rotation, each shared with the
// rotations of the same event-loop turn.
import { createHmac } from 'node:crypto';
import { columnsOf, type Db, dbBoundsOf, gatherOn, runPrepared, type Statement, unnestParams } from '@svc/db';
import { DependencyTimeoutError, isDependencyFailure } from '@svc/platform';
import {
  type ApplicationTokenClaims,
  type ClaimView,
  type Kek,
  mintAccessToken,
  mintRefreshToken,
} from '@svc/token-core';
import type { Redis } from 'ioredis';
import type { ApplicationContext } from './application-context';
import { checkApplication, checkSnapshot } from './checks';
import type { IssuanceDeps } from './deps';
import { activeSigner } from './issue';
import { isRefreshJtiOf, newRefreshJti } from './refresh-jti';
import { publishSessionChange } from './session-events';
import { currentTermsCached, type SnapshotRow, snapshotColumnsSql, toSnapshot } from './snapshot';
import type { CurrentTerms } from './terms';
import { markRotationUnanswered, wasRotationUnanswered } from './unanswered-rotations';
import { workloadAuthoritySql } from './workload-authority';

export interface RotationDeps extends IssuanceDeps {
  redis: Redis;
}

export interface RotateInput {
  app: ApplicationContext;
  claims: ApplicationTokenClaims;
  presentedToken: string;
  /** 0 for strict hosts (connect): any reuse or lost race is compromise. */
  retryAllowanceMs: number;
  /**
   * The issuance protocol of the sessions this host rotates (default APPLICATION): the OIDC host's /token rotates
   * only OIDC sessions, every other host only APPLICATION ones; a session of the other protocol is not found.
   */
  protocol?: 'APPLICATION' | 'OIDC';
}

export type RotationOutcome =
  | { kind: 'rotated'; accessToken: string; refreshToken: string; claims: ClaimView; rotationVersion: number }
  | { kind: 'not_found' }
  | { kind: 'revoked' }
  | { kind: 'suspended' }
  | { kind: 'expired' }
  | { kind: 'family_compromised' }
  | { kind: 'race_lost' }
  /**
   * With a retry allowance: this rotation read its version as current (so it ran concurrently with the winner and
   * is no reuse), lost the write, and the allowance cannot answer: the winner's version was rotated again already,
   * or the winner rotated longer ago than the allowance. Nothing changes; the caller cannot be given a pair.
   */
  | { kind: 'conflict' }
  /**
   * The authority the session was issued under changed: the workload behind it (revoked, regenerated, actor subject
   * rotated, credential revoked), or the account's authority version (status or credentials changed since sign-in).
   */
  | { kind: 'stale' };

const COMPROMISED = 'compromised';

/** The access token's jti, derived from its refresh token's (keyed, so it looks random to everyone else). */
function accessJtiFor(kek: Kek, refreshJti: string): string {
  return createHmac('sha256', kek.key)
    .update(`access-jti\u0000${refreshJti}`)
    .digest()
    .subarray(0, 16)
    .toString('base64url');
}

interface RotationRow extends SnapshotRow {
  id: string;
  application_id: string;
  protocol: 'APPLICATION' | 'OIDC';
  subject: string;
  actor_subject: string | null;
  status: 'ACTIVE' | 'SUSPENDED' | 'REVOKED' | 'EXPIRED';
  revoked_reason: string | null;
  current_version: number;
  access_ttl: number;
  refresh_ttl: number;
  expires_at: Date;
  rotated_at: Date | null;
  /** The current version's refresh jti. */
  current_jti: string;
  workload_ok: boolean;
  /** The account's authority version when the session was issued (null: issued before it was kept). */
  session_authority_version: number | null;
  /** When PostgreSQL began the read (its own clock): the write's deadline counts from here. */
  read_at: Date;
}

/**
 * The session, workload authority and the issuance snapshot, for every rotation that reads in the same event-loop
 * turn: one round trip, one row per input (all columns null when the session does not exist), in input order.
 */
const READ_ROTATIONS: Statement = {
  name: 'rotation_read_v8',
  text: `SELECT s.id, s.application_id, s.protocol, s.subject, s.actor_subject,
      s.status, s.revoked_reason, s.current_version, s.current_jti, s.access_ttl, s.refresh_ttl, s.expires_at,
      s.rotated_at, s.authority_version AS session_authority_version, statement_timestamp() AS read_at,
      ${workloadAuthoritySql({
        workloadId: 's.workload_id',
        generation: 's.workload_generation',
        actorSubject: 's.actor_subject',
        credentialId: 's.source_credential_id',
      })} AS workload_ok,
      ${snapshotColumnsSql('s.application_id', 'q.epoch')}
    FROM ${unnestParams(['text', 'int'])} WITH ORDINALITY AS q(sid, epoch, ord)
    LEFT JOIN sessions s ON s.id = q.sid
    LEFT JOIN accounts a ON a.id = s.account_id
    ORDER BY q.ord`,
};

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
  name: 'rotation_consume_v6',
  text: `UPDATE sessions s
    SET current_version = v.next, current_jti = v.jti, rotated_at = v.at, expires_at = v.expires
    FROM ${unnestParams(['text', 'int', 'int', 'timestamptz', 'timestamptz', 'text', 'timestamptz'])}
      AS v(id, presented, next, at, expires, jti, deadline)
    WHERE s.id = v.id AND s.current_version = v.presented AND s.status = 'ACTIVE'
      AND (v.deadline IS NULL OR statement_timestamp() < v.deadline)
    RETURNING s.id, s.current_jti`,
};

interface ReadInput {
  sid: string;
  epoch: number;
}

export interface ConsumeInput {
  sid: string;
  presented: number;
  next: number;
  at: Date;
  expiresAt: Date;
  jti: string;
  /** Not applied if PostgreSQL starts the write at or after this instant (its clock); none when absent. */
  deadline?: Date;
}

/** Consumes presented versions in one statement; true for each input whose write won. */
export async function consumeVersions(db: Db, inputs: ConsumeInput[]): Promise<boolean[]> {
  const won = await runPrepared<{ id: string; current_jti: string }>(
    db,
    CONSUME_VERSIONS,
    columnsOf(inputs, ['sid', 'presented', 'next', 'at', 'expiresAt', 'jti', 'deadline']),
  );
  const winners = new Set(won.map((w) => `${w.id} ${w.current_jti}`));
  return inputs.map((i) => winners.has(`${i.sid} ${i.jti}`));
}

/** The rotation read, gathered per event-loop turn (see `gather`). */
const readRotation = gatherOn(async (db, inputs: ReadInput[]) => {
  const rows = await runPrepared<RotationRow | { id: null }>(
    db,
    READ_ROTATIONS,
    columnsOf(inputs, ['sid', 'epoch']),
  );
  return rows.map((r) => (r.id === null ? undefined : (r as RotationRow)));
});

/** The conditional write, gathered per event-loop turn. */
const consumeVersion = gatherOn(consumeVersions);

/** Whether the presented version is the one just rotated, inside the allowance: a retry of that rotation. */
function isRetry(row: RotationRow, input: RotateInput, now: Date): boolean {
  const presented = input.claims.rotationVersion ?? 0;
  return (
    input.retryAllowanceMs > 0 &&
    row.current_version === presented + 1 &&
    row.rotated_at !== null &&
    now.getTime() - row.rotated_at.getTime() <= input.retryAllowanceMs
  );
}

export async function revokeFamily(deps: RotationDeps, sid: string, reason = COMPROMISED): Promise<void> {
  await deps.db.session.updateMany({
    where: { id: sid, status: { in: ['ACTIVE', 'SUSPENDED'] } },
    data: { status: 'REVOKED', revokedReason: reason, revokedAt: deps.now() },
  });
  await publishSessionChange(deps.redis, sid);
}

/**
 * Whether the authority the session was issued under changed: its workload's (see `workloadAuthoritySql`), or the
 * account's authority version. An account that is not ACTIVE is left to the account checks (AccountDisabled,
 * AccountDeleted), which come first.
 */
function authorityChanged(row: RotationRow): boolean {
  if (!row.workload_ok) return true;
  return (
    row.session_authority_version !== null &&
    row.account_status === 'ACTIVE' &&
    row.authority_version !== row.session_authority_version
  );
}

/**
 * What the presented version may become, before any signing: a refusal, a retry, or (undefined) a rotation.
 * `afterLostWrite`: this rotation already read the version as current and lost its write; a version since
 * superseded is then no reuse but a conflict, unless the allowance can answer it.
 */
async function judge(
  deps: RotationDeps,
  row: RotationRow | undefined,
  input: RotateInput,
  afterLostWrite = false,
): Promise<RotationOutcome | 'retry' | undefined> {
  const { claims } = input;
  const presented = claims.rotationVersion ?? 0;
  if (!row || row.application_id !== input.app.id || row.protocol !== (input.protocol ?? 'APPLICATION'))
    return { kind: 'not_found' };
  // The signature proves the token was issued; a version this session never reached was not (a pair minted for a
  // rotation that lost its write is never handed out). Every version binds to the session through its exact jti:
  // the current one is on the row, an older one carries a MAC of the sid and its version (see refresh-jti).
  if (presented > row.current_version) return { kind: 'not_found' };
  const genuine =
    presented === row.current_version
      ? row.current_jti === claims.jti
      : isRefreshJtiOf(deps.kek, claims.jti, row.id, presented);
  if (!genuine) return { kind: 'not_found' };
  if (row.status === 'REVOKED') {
    return row.revoked_reason === COMPROMISED ? { kind: 'family_compromised' } : { kind: 'revoked' };
  }
  if (row.status === 'SUSPENDED') return { kind: 'suspended' };
  const now = deps.now();
  if (row.status === 'EXPIRED' || row.expires_at <= now) return { kind: 'expired' };
  // Before the retry allowance: a retry after the authority changed gets no pair either.
  if (authorityChanged(row)) {
    await revokeFamily(deps, row.id, 'authority_changed');
    return { kind: 'stale' };
  }
  if (presented < row.current_version) {
    if (isRetry(row, input, now)) return 'retry';
    // The rotation this token made was committed but its answer was lost to a PostgreSQL failure: this is the
    // client's retry after the outage.
    if (
      input.retryAllowanceMs > 0 &&
      row.current_version === presented + 1 &&
      (await wasRotationUnanswered(deps.redis, row.id, presented))
    ) {
      return 'retry';
    }
    if (afterLostWrite) return { kind: 'conflict' };
    await revokeFamily(deps, row.id);
    return { kind: 'family_compromised' };
  }
  // Still current after a lost write (the session was not ACTIVE for an instant): nothing to hand out either.
  if (afterLostWrite) return { kind: 'conflict' };
  return undefined;
}

/** Mints the pair of a version: every claim comes from the session row, the version, its jti and its instant. */
async function mintVersion(
  deps: RotationDeps,
  app: ApplicationContext,
  row: RotationRow,
  version: { number: number; jti: string; at: Date },
) {
  const signer = await activeSigner(deps, app.id);
  const common = {
    issuer: deps.issuer,
    audience: app.anchor,
    sid: row.id,
    iat: Math.floor(version.at.getTime() / 1000),
  };
  const [access, refresh] = await Promise.all([
    mintAccessToken(signer, {
      ...common,
      jti: accessJtiFor(deps.kek, version.jti),
      ttlSeconds: row.access_ttl,
      subject: row.subject,
      actorSubject: row.actor_subject ?? undefined,
    }),
    mintRefreshToken(signer, {
      ...common,
      ttlSeconds: row.refresh_ttl,
      jti: version.jti,
      rotationVersion: version.number,
    }),
  ]);
  return { accessToken: access.token, refreshToken: refresh.token, refreshExp: refresh.exp };
}

/** The issuance checks over the row's snapshot; a refusal leaves the version unconsumed for a later retry. */
async function checkedClaims(
  deps: RotationDeps,
  app: ApplicationContext,
  row: RotationRow,
  terms: CurrentTerms | undefined,
): Promise<ClaimView> {
  checkApplication(app);
  return (await checkSnapshot(deps, app, toSnapshot(row, terms), terms)).claims;
}

/** A retry of the rotation just made: the pair of the current version, minted again. */
async function retryRotation(
  deps: RotationDeps,
  app: ApplicationContext,
  row: RotationRow,
  terms: CurrentTerms | undefined,
): Promise<RotationOutcome> {
  const view = await checkedClaims(deps, app, row, terms);
  const pair = await mintVersion(deps, app, row, {
    number: row.current_version,
    jti: row.current_jti,
    at: row.rotated_at!,
  });
  return { kind: 'rotated', ...pair, claims: view, rotationVersion: row.current_version };
}

// Module-level steps rather than closures: this runs once per refresh, and each closure would be a fresh function.
export async function rotateRefreshToken(deps: RotationDeps, input: RotateInput): Promise<RotationOutcome> {
  const { app, claims } = input;
  const presented = claims.rotationVersion ?? 0;
  const terms = await currentTermsCached(deps.db);
  const readInput = { sid: claims.sid, epoch: terms?.acceptanceEpoch ?? 0 };

  const row = await readRotation(deps.db, readInput);
  const verdict = await judge(deps, row, input);
  if (verdict === 'retry') return retryRotation(deps, app, row!, terms);
  if (verdict) return verdict;
  const session = row!;
  const view = await checkedClaims(deps, app, session, terms);
  // rotated_at keeps milliseconds; the tokens' iat is its whole second, so a retry mints the same iat again.
  const now = deps.now();
  const next = { number: presented + 1, jti: newRefreshJti(deps.kek, session.id, presented + 1), at: now };
  const pair = await mintVersion(deps, app, session, next);
  const won = await consumeVersion(deps.db, {
    sid: session.id,
    presented,
    next: next.number,
    at: now,
    expiresAt: new Date(pair.refreshExp * 1000),
    jti: next.jti,
    deadline: new Date(session.read_at.getTime() + dbBoundsOf(deps.db).statementTimeoutMs),
  }).catch(async (err: unknown) => {
    // The write may have committed before the failure reached us (a timeout, a connection dropped after the
    // commit): remember it, so the client's retry gets this pair rather than a reuse verdict.
    if (isDependencyFailure(err)) await markRotationUnanswered(deps.redis, session.id, presented);
    throw err;
  });
  if (won) {
    return {
      kind: 'rotated',
      accessToken: pair.accessToken,
      refreshToken: pair.refreshToken,
      claims: view,
      rotationVersion: next.number,
    };
  }
  const again = await readRotation(deps.db, readInput);
  if (again?.status === 'ACTIVE' && again.current_version === presented && again.current_jti === claims.jti) {
    // Nothing consumed the version: the write missed its deadline (or met the session not ACTIVE for an instant).
    // The rotation never happened, so this is no conflict: the client may simply try again.
    throw new DependencyTimeoutError('the rotation write reached PostgreSQL after its deadline');
  }
  // Lost to a concurrent rotation of the same version (or a revocation): with an allowance, the winner's version is
  // committed and this is its retry, or a conflict the allowance cannot answer; otherwise (strict hosts) the lost
  // race compromises the family.
  if (input.retryAllowanceMs > 0) {
    const outcome = await judge(deps, again, input, true);
    if (outcome === 'retry') return retryRotation(deps, app, again!, terms);
    return outcome ?? { kind: 'conflict' };
  }
  await revokeFamily(deps, session.id);
  return { kind: 'race_lost' };
}
