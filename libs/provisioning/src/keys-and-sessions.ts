// Operator actions on signing keys (rotate now, emergency revoke) and on sessions (listing, suspension).
import type { Db } from '@svc/db';
import { createSectorSubjectsStore } from '@svc/issuance/stores';
import {
  activateNextKey,
  KeySetFullError,
  OIDC_SCOPE,
  prepublishRotation,
  publishedKids,
  publishKeyChange,
  type RotationWindows,
  revokeKey,
} from '@svc/keyring';
import type { Clock } from '@svc/platform';
import type { Kek } from '@svc/token-core';
import type { Redis } from 'ioredis';
import { appByAnchor } from './domain/tenancy';
import { ProvisioningError } from './errors';
import { moveSessionStatus, readSessionStatus, readSessions } from './store/sessions';
import { createTenancyStore } from './store/tenancy';

/** The lifecycle's refusal to publish a 33rd key, in an operator's words. */
async function refusingFullSet<T>(anchor: string, change: () => Promise<T>): Promise<T> {
  try {
    return await change();
  } catch (err) {
    if (!(err instanceof KeySetFullError)) throw err;
    const when = err.roomAt ? `; the first retiring key leaves the set at ${err.roomAt.toISOString()}` : '';
    throw new ProvisioningError(
      `the JWK Set of ${anchor} already publishes ${err.published} keys, the most it may hold, and every one can ` +
        `still verify live tokens; a rotation would add one more${when}. Rotate after that, or revoke a key ` +
        `(keys revoke) whose tokens may be cut off`,
    );
  }
}

/** `keys rotate --now`: the waiting NEXT key (or a fresh one) signs at once. */
export async function rotateKeysNow(
  db: Db,
  kek: Kek,
  anchor: string,
  windows: RotationWindows,
  clock: Clock,
  redis?: Redis,
) {
  const app = await appByAnchor({ tenancy: createTenancyStore(db) }, anchor);
  const at = new Date(clock());
  await refusingFullSet(anchor, () =>
    activateNextKey(db, kek, app.id, { force: true, keyCacheTtlMs: windows.keyCacheTtlMs, at }),
  );
  if (redis) await publishKeyChange(redis, app.id);
  return { kids: await publishedKids(db, app.id, at) };
}

/**
 * `keys rotate`: the new key is prepublished and signs only once it has been published for
 * `windows.publishedSeconds` (the JWK Set cache lifetime; the worker's rotation tick activates it then).
 */
export async function rotateKeysPrepublished(
  db: Db,
  kek: Kek,
  anchor: string,
  windows: RotationWindows,
  clock: Clock,
) {
  const app = await appByAnchor({ tenancy: createTenancyStore(db) }, anchor);
  const at = new Date(clock());
  await refusingFullSet(anchor, () => prepublishRotation(db, kek, app.id, windows, at));
  return { kids: await publishedKids(db, app.id, at) };
}

export async function revokeKeyNow(
  db: Db,
  kek: Kek,
  anchor: string,
  kid: string,
  clock: Clock,
  redis?: Redis,
) {
  const app = await appByAnchor({ tenancy: createTenancyStore(db) }, anchor);
  const at = new Date(clock());
  const res = await revokeKey(db, kek, app.id, kid, at);
  if (!res.found) throw new ProvisioningError('signing key not found for this application');
  if (redis) await publishKeyChange(redis, app.id);
  return { kids: await publishedKids(db, app.id, at) };
}

/** `keys rotate --oidc --now`: the platform ID-token key set gets a new signer at once. */
export async function rotateOidcKeysNow(db: Db, kek: Kek, windows: RotationWindows, clock: Clock) {
  const at = new Date(clock());
  await refusingFullSet('the platform OIDC key set', () =>
    activateNextKey(db, kek, OIDC_SCOPE, { force: true, keyCacheTtlMs: windows.keyCacheTtlMs, at }),
  );
  return { kids: await publishedKids(db, OIDC_SCOPE, at) };
}

/** `keys rotate --oidc`: a new platform ID-token key is prepublished and signs after `windows.publishedSeconds`. */
export async function rotateOidcKeysPrepublished(db: Db, kek: Kek, windows: RotationWindows, clock: Clock) {
  const at = new Date(clock());
  await refusingFullSet('the platform OIDC key set', () =>
    prepublishRotation(db, kek, OIDC_SCOPE, windows, at),
  );
  return { kids: await publishedKids(db, OIDC_SCOPE, at) };
}

/** `keys revoke --oidc --kid K`: the platform ID-token key leaves the JWKS at once (a new signer if it signed). */
export async function revokeOidcKeyNow(db: Db, kek: Kek, kid: string, clock: Clock) {
  const at = new Date(clock());
  const res = await revokeKey(db, kek, OIDC_SCOPE, kid, at);
  if (!res.found) throw new ProvisioningError('signing key not found in the platform OIDC key set');
  return { kids: await publishedKids(db, OIDC_SCOPE, at) };
}

export async function listSessions(db: Db, anchor: string, subject: string, clock: Clock) {
  const app = await appByAnchor({ tenancy: createTenancyStore(db) }, anchor);
  const subj = await createSectorSubjectsStore(db).findBySubject(app.sectorId, subject);
  if (subj?.principalKind !== 'ACCOUNT') return { sessions: [] };
  const rows = await readSessions(db, app.id, subj.principalId, 500);
  const now = new Date(clock());
  return {
    sessions: rows.map((s) => ({
      sid: s.id,
      status: s.status === 'ACTIVE' && s.expiresAt <= now ? 'expired' : s.status.toLowerCase(),
      protocol: s.protocol,
      authMethod: s.authMethod,
      actorSubject: s.actorSubject,
      rotationVersion: s.currentVersion,
      createdAt: s.createdAt.toISOString(),
      expiresAt: s.expiresAt.toISOString(),
      revokedAt: s.revokedAt?.toISOString() ?? null,
    })),
  };
}

type SessionMove = 'suspend' | 'resume';

const MOVES: Record<SessionMove, { from: 'ACTIVE' | 'SUSPENDED'; to: 'ACTIVE' | 'SUSPENDED'; done: string }> =
  {
    suspend: { from: 'ACTIVE', to: 'SUSPENDED', done: 'suspended' },
    resume: { from: 'SUSPENDED', to: 'ACTIVE', done: 'resumed' },
  };

/**
 * Suspends an active session or resumes a suspended one, in one conditional write (a rotation or revocation racing
 * it wins or loses whole). A suspended session refreshes with RefreshTokenSuspended and introspects as not active;
 * resuming makes its current refresh version usable again. Repeating a move is idempotent; a revoked or expired
 * session cannot move.
 */
export async function moveSession(db: Db, sid: string, move: SessionMove, clock: Clock) {
  const { from, to, done } = MOVES[move];
  const now = new Date(clock());
  if (await moveSessionStatus(db, sid, { from, to }, now)) return { sid, status: to.toLowerCase() };
  const row = await readSessionStatus(db, sid);
  if (!row) throw new ProvisioningError('session not found');
  const live = row.status === 'ACTIVE' || row.status === 'SUSPENDED';
  const status = live && row.expiresAt <= now ? 'expired' : row.status.toLowerCase();
  if (status === to.toLowerCase()) return { sid, status: to.toLowerCase() };
  throw new ProvisioningError(`the session is ${status}; only ${from.toLowerCase()} sessions can be ${done}`);
}
