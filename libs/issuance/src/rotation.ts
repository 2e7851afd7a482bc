// rotateRefreshToken: strict rotation of a session's refresh token. The presented version is consumed by one
// conditional write (current_version = presented), so across every replica exactly one rotation wins. With a
// retry allowance (session host), a near-simultaneous retry of the same rotation gets the pair already issued,
// kept briefly in Redis sealed under a key derived from the presented token itself; any other reuse revokes the
// whole family.
import { createHash } from 'node:crypto';
import {
  type ApplicationTokenClaims,
  type ClaimView,
  kekFromBytes,
  mintAccessToken,
  mintRefreshToken,
  newJti,
  open,
  seal,
} from '@svc/token-core';
import type { Redis } from 'ioredis';
import type { ApplicationContext } from './application-context';
import { runIssuanceChecks } from './checks';
import type { IssuanceDeps } from './deps';
import { activeSigner } from './issue';
import { publishSessionChange } from './session-events';
import { workloadAuthoritative } from './workload-authority';

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
  /** A retry inside the allowance whose original rotation did not finish: unrecoverable, status only. */
  | { kind: 'conflict' }
  /** The workload behind the session lost its authority (revoked, regenerated, credential revoked). */
  | { kind: 'stale' };

const COMPROMISED = 'compromised';
const claimKey = (jti: string) => `rt:claim:${jti}`;
const resultKey = (jti: string) => `rt:result:${jti}`;

function retryKek(presentedToken: string) {
  return kekFromBytes(createHash('sha256').update(`refresh-retry\u0000${presentedToken}`).digest());
}

interface CachedPair {
  accessToken: string;
  refreshToken: string;
  claims: ClaimView;
  rotationVersion: number;
}

async function readCachedPair(redis: Redis, input: RotateInput): Promise<CachedPair | undefined> {
  const sealed = await redis.get(resultKey(input.claims.jti));
  if (!sealed) return undefined;
  try {
    return JSON.parse(
      open(retryKek(input.presentedToken), sealed, input.claims.jti).toString('utf8'),
    ) as CachedPair;
  } catch {
    return undefined;
  }
}

/** Waits for the winner of an in-flight rotation of the same version to publish its pair. */
async function awaitCachedPair(redis: Redis, input: RotateInput): Promise<CachedPair | undefined> {
  const deadline = Date.now() + input.retryAllowanceMs;
  for (let delay = 5; Date.now() < deadline; delay = Math.min(delay * 2, 50)) {
    const pair = await readCachedPair(redis, input);
    if (pair) return pair;
    if (!(await redis.exists(claimKey(input.claims.jti)))) return readCachedPair(redis, input);
    await new Promise((r) => setTimeout(r, delay));
  }
  return readCachedPair(redis, input);
}

export async function revokeFamily(deps: RotationDeps, sid: string, reason = COMPROMISED): Promise<void> {
  await deps.db.session.updateMany({
    where: { id: sid, status: { in: ['ACTIVE', 'SUSPENDED'] } },
    data: { status: 'REVOKED', revokedReason: reason, revokedAt: deps.now() },
  });
  await publishSessionChange(deps.redis, sid);
}

interface RotationSession {
  id: string;
  applicationId: string;
  protocol: 'APPLICATION' | 'OIDC';
  accountId: string;
  workloadId: string | null;
  workloadGeneration: number | null;
  sourceCredentialId: string | null;
  subject: string;
  actorSubject: string | null;
  status: 'ACTIVE' | 'SUSPENDED' | 'REVOKED' | 'EXPIRED';
  revokedReason: string | null;
  currentVersion: number;
  accessTtl: number;
  refreshTtl: number;
  expiresAt: Date;
  /** The version recorded for the presented jti in this session, if any. */
  presentedVersion: number | null;
}

/** The session and the version its presented jti was issued as, in one round trip (the hot path of refresh). */
async function loadRotationSession(
  deps: RotationDeps,
  sid: string,
  jti: string,
): Promise<RotationSession | undefined> {
  const rows = await deps.db.$queryRaw<RotationSession[]>`
    SELECT s.id, s.application_id AS "applicationId", s.protocol, s.account_id AS "accountId",
      s.workload_id AS "workloadId", s.workload_generation AS "workloadGeneration",
      s.source_credential_id AS "sourceCredentialId", s.subject, s.actor_subject AS "actorSubject", s.status,
      s.revoked_reason AS "revokedReason", s.current_version AS "currentVersion", s.access_ttl AS "accessTtl",
      s.refresh_ttl AS "refreshTtl", s.expires_at AS "expiresAt",
      (SELECT v.version FROM refresh_versions v WHERE v.jti = ${jti} AND v.session_id = s.id) AS "presentedVersion"
    FROM sessions s WHERE s.id = ${sid}`;
  return rows[0];
}

export async function rotateRefreshToken(deps: RotationDeps, input: RotateInput): Promise<RotationOutcome> {
  const { app, claims } = input;
  const presented = claims.rotationVersion ?? 0;
  const session = await loadRotationSession(deps, claims.sid, claims.jti);
  if (!session || session.applicationId !== app.id || session.protocol !== 'APPLICATION')
    return { kind: 'not_found' };
  if (session.presentedVersion !== presented) return { kind: 'not_found' };
  if (session.status === 'REVOKED') {
    return session.revokedReason === COMPROMISED ? { kind: 'family_compromised' } : { kind: 'revoked' };
  }
  if (session.status === 'SUSPENDED') return { kind: 'suspended' };
  if (session.status === 'EXPIRED' || session.expiresAt <= deps.now()) return { kind: 'expired' };

  if (presented < session.currentVersion) {
    if (input.retryAllowanceMs > 0) {
      const pair = await awaitCachedPair(deps.redis, input);
      if (pair) return { kind: 'rotated', ...pair };
    }
    await revokeFamily(deps, session.id);
    return { kind: 'family_compromised' };
  }

  if (input.retryAllowanceMs > 0) {
    const won = await deps.redis.set(claimKey(claims.jti), '1', 'PX', input.retryAllowanceMs, 'NX');
    if (won !== 'OK') {
      const pair = await awaitCachedPair(deps.redis, input);
      return pair ? { kind: 'rotated', ...pair } : { kind: 'conflict' };
    }
  }
  try {
    if (!(await workloadAuthoritative(deps.db, session))) {
      await revokeFamily(deps, session.id, 'authority_changed');
      return { kind: 'stale' };
    }
    const { claims: view } = await runIssuanceChecks(deps, app, session.accountId);
    const signer = await activeSigner(deps, app.id);
    const now = deps.now();
    const iat = Math.floor(now.getTime() / 1000);
    const next = presented + 1;
    const jti = newJti();
    const common = { issuer: deps.issuer, audience: app.anchor, sid: session.id, iat };
    const [access, refresh] = await Promise.all([
      mintAccessToken(signer, {
        ...common,
        ttlSeconds: session.accessTtl,
        subject: session.subject,
        actorSubject: session.actorSubject ?? undefined,
      }),
      mintRefreshToken(signer, { ...common, ttlSeconds: session.refreshTtl, jti, rotationVersion: next }),
    ]);
    const expiresAt = new Date(refresh.exp * 1000);
    // The conditional write: only the caller that still sees `presented` as current consumes it.
    const rows = await deps.db.$executeRaw`
      WITH s AS (
        UPDATE sessions SET current_version = ${next}, rotated_at = ${now}, expires_at = ${expiresAt}
        WHERE id = ${session.id} AND current_version = ${presented} AND status = 'ACTIVE'
        RETURNING id)
      INSERT INTO refresh_versions (session_id, version, jti, issued_at, expires_at)
      SELECT id, ${next}, ${jti}, ${now}, ${expiresAt} FROM s`;
    if (rows !== 1) {
      if (input.retryAllowanceMs > 0) return { kind: 'conflict' };
      await revokeFamily(deps, session.id);
      return { kind: 'race_lost' };
    }
    const pair: CachedPair = {
      accessToken: access.token,
      refreshToken: refresh.token,
      claims: view,
      rotationVersion: next,
    };
    if (input.retryAllowanceMs > 0) {
      const sealed = seal(retryKek(input.presentedToken), JSON.stringify(pair), claims.jti);
      await deps.redis.set(resultKey(claims.jti), sealed, 'PX', input.retryAllowanceMs);
    }
    return { kind: 'rotated', ...pair };
  } catch (err) {
    // A refusal (account disabled, claim gate, ...) leaves the version unconsumed: free it for a later retry.
    if (input.retryAllowanceMs > 0) await deps.redis.del(claimKey(claims.jti)).catch(() => undefined);
    throw err;
  }
}
