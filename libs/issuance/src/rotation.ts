// rotateRefreshToken: strict rotation of a session's refresh token. The presented version is consumed by one
// conditional write (current_version = presented), so across every replica exactly one rotation wins. With a
// retry allowance (session host), that same write keeps the new pair sealed under a key derived from the presented
// token itself, so a near-simultaneous retry of the same rotation gets the pair already issued; any other reuse
// revokes the whole family. One read and one write per rotation, both prepared statements.
import { createHmac } from 'node:crypto';
import { runPrepared, type Statement } from '@svc/db';
import {
  type ApplicationTokenClaims,
  type ClaimView,
  type Kek,
  kekFromBytes,
  mintAccessToken,
  mintRefreshToken,
  newJti,
  open,
  seal,
} from '@svc/token-core';
import type { Redis } from 'ioredis';
import type { ApplicationContext } from './application-context';
import { checkApplication, checkSnapshot } from './checks';
import type { IssuanceDeps } from './deps';
import { activeSigner } from './issue';
import { publishSessionChange } from './session-events';
import { currentTermsCached, type SnapshotRow, snapshotColumnsSql, toSnapshot } from './snapshot';
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
}

export type RotationOutcome =
  | { kind: 'rotated'; accessToken: string; refreshToken: string; claims: ClaimView; rotationVersion: number }
  | { kind: 'not_found' }
  | { kind: 'revoked' }
  | { kind: 'suspended' }
  | { kind: 'expired' }
  | { kind: 'family_compromised' }
  | { kind: 'race_lost' }
  /** The workload behind the session lost its authority (revoked, regenerated, credential revoked). */
  | { kind: 'stale' };

const COMPROMISED = 'compromised';

/**
 * The key sealing a retry pair: bound to the service KEK and to the presented token, so neither a database reader
 * nor a holder of the old token alone can open it.
 */
function retryKek(kek: Kek, presentedToken: string): Kek {
  return kekFromBytes(createHmac('sha256', kek.key).update(`refresh-retry\u0000${presentedToken}`).digest());
}

interface IssuedPair {
  accessToken: string;
  refreshToken: string;
  claims: ClaimView;
  rotationVersion: number;
}

interface RotationRow extends SnapshotRow {
  id: string;
  application_id: string;
  protocol: 'APPLICATION' | 'OIDC';
  session_account_id: string;
  subject: string;
  actor_subject: string | null;
  status: 'ACTIVE' | 'SUSPENDED' | 'REVOKED' | 'EXPIRED';
  revoked_reason: string | null;
  current_version: number;
  access_ttl: number;
  refresh_ttl: number;
  expires_at: Date;
  rotated_at: Date | null;
  retry_pair: string | null;
  /** The version recorded for the presented jti in this session, if any. */
  presented_version: number | null;
  workload_ok: boolean;
}

/** The session, its presented version, workload authority and the issuance snapshot: one round trip. */
const READ_ROTATION: Statement = {
  name: 'rotation_read_v1',
  text: `SELECT s.id, s.application_id, s.protocol, s.account_id AS session_account_id, s.subject, s.actor_subject,
      s.status, s.revoked_reason, s.current_version, s.access_ttl, s.refresh_ttl, s.expires_at, s.rotated_at,
      s.retry_pair,
      (SELECT v.version FROM refresh_versions v WHERE v.jti = $2 AND v.session_id = s.id) AS presented_version,
      ${workloadAuthoritySql({
        workloadId: 's.workload_id',
        generation: 's.workload_generation',
        actorSubject: 's.actor_subject',
        credentialId: 's.source_credential_id',
      })} AS workload_ok,
      ${snapshotColumnsSql('s.application_id', '$3::int')}
    FROM sessions s LEFT JOIN accounts a ON a.id = s.account_id
    WHERE s.id = $1`,
};

/** The conditional write: only the caller that still sees `presented` as current consumes it. */
const CONSUME_VERSION: Statement = {
  name: 'rotation_consume_v1',
  text: `WITH s AS (
      UPDATE sessions SET current_version = $3, rotated_at = $4, expires_at = $5, retry_pair = $6
      WHERE id = $1 AND current_version = $2 AND status = 'ACTIVE'
      RETURNING id)
    INSERT INTO refresh_versions (session_id, version, jti, issued_at, expires_at)
    SELECT id, $3, $7, $4, $5 FROM s
    RETURNING 1 AS won`,
};

/** The pair the winning rotation of the presented version sealed, while the allowance lasts. */
function pairForRetry(kek: Kek, row: RotationRow, input: RotateInput, now: Date): IssuedPair | undefined {
  const presented = input.claims.rotationVersion ?? 0;
  if (input.retryAllowanceMs <= 0 || !row.retry_pair || !row.rotated_at) return undefined;
  if (row.current_version !== presented + 1) return undefined;
  if (now.getTime() - row.rotated_at.getTime() > input.retryAllowanceMs) return undefined;
  try {
    const plain = open(retryKek(kek, input.presentedToken), row.retry_pair, input.claims.jti);
    return JSON.parse(plain.toString('utf8')) as IssuedPair;
  } catch {
    return undefined;
  }
}

export async function revokeFamily(deps: RotationDeps, sid: string, reason = COMPROMISED): Promise<void> {
  await deps.db.session.updateMany({
    where: { id: sid, status: { in: ['ACTIVE', 'SUSPENDED'] } },
    data: { status: 'REVOKED', revokedReason: reason, revokedAt: deps.now() },
  });
  await publishSessionChange(deps.redis, sid);
}

/** What the presented version may still become, before any signing: a refusal, a retry answer, or go on. */
async function judge(
  deps: RotationDeps,
  row: RotationRow | undefined,
  input: RotateInput,
): Promise<RotationOutcome | undefined> {
  const presented = input.claims.rotationVersion ?? 0;
  if (!row || row.application_id !== input.app.id || row.protocol !== 'APPLICATION')
    return { kind: 'not_found' };
  if (row.presented_version !== presented) return { kind: 'not_found' };
  if (row.status === 'REVOKED') {
    return row.revoked_reason === COMPROMISED ? { kind: 'family_compromised' } : { kind: 'revoked' };
  }
  if (row.status === 'SUSPENDED') return { kind: 'suspended' };
  const now = deps.now();
  if (row.status === 'EXPIRED' || row.expires_at <= now) return { kind: 'expired' };
  if (presented < row.current_version) {
    const pair = pairForRetry(deps.kek, row, input, now);
    if (pair) return { kind: 'rotated', ...pair };
    await revokeFamily(deps, row.id);
    return { kind: 'family_compromised' };
  }
  if (!row.workload_ok) {
    await revokeFamily(deps, row.id, 'authority_changed');
    return { kind: 'stale' };
  }
  return undefined;
}

export async function rotateRefreshToken(deps: RotationDeps, input: RotateInput): Promise<RotationOutcome> {
  const { app, claims } = input;
  const presented = claims.rotationVersion ?? 0;
  const terms = await currentTermsCached(deps.db);
  const read = () =>
    runPrepared<RotationRow>(deps.db, READ_ROTATION, [claims.sid, claims.jti, terms?.acceptanceEpoch ?? 0]);
  const [row] = await read();
  const refused = await judge(deps, row, input);
  if (refused) return refused;
  const session = row!;
  checkApplication(app);
  // A refusal here (account disabled, terms, claim gate) leaves the version unconsumed for a later retry.
  const { claims: view } = await checkSnapshot(deps, app, toSnapshot(session, terms), terms);

  const signer = await activeSigner(deps, app.id);
  const now = deps.now();
  const iat = Math.floor(now.getTime() / 1000);
  const next = presented + 1;
  const jti = newJti();
  const common = { issuer: deps.issuer, audience: app.anchor, sid: session.id, iat };
  const [access, refresh] = await Promise.all([
    mintAccessToken(signer, {
      ...common,
      ttlSeconds: session.access_ttl,
      subject: session.subject,
      actorSubject: session.actor_subject ?? undefined,
    }),
    mintRefreshToken(signer, { ...common, ttlSeconds: session.refresh_ttl, jti, rotationVersion: next }),
  ]);
  const pair: IssuedPair = {
    accessToken: access.token,
    refreshToken: refresh.token,
    claims: view,
    rotationVersion: next,
  };
  const sealed =
    input.retryAllowanceMs > 0
      ? seal(retryKek(deps.kek, input.presentedToken), JSON.stringify(pair), claims.jti)
      : null;
  const won = await runPrepared(deps.db, CONSUME_VERSION, [
    session.id,
    presented,
    next,
    now,
    new Date(refresh.exp * 1000),
    sealed,
    jti,
  ]);
  if (won.length === 1) return { kind: 'rotated', ...pair };
  // Lost to a concurrent rotation of the same version (or a revocation): with an allowance, the winner's sealed
  // pair is already committed; otherwise the reuse compromises the family.
  if (input.retryAllowanceMs > 0) {
    const [now2] = await read();
    const outcome = await judge(deps, now2, input);
    if (outcome) return outcome;
  }
  await revokeFamily(deps, session.id);
  return { kind: 'race_lost' };
}
