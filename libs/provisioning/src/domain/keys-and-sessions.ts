// Operator actions on signing keys (rotate now, emergency revoke) and on sessions (listing, suspension).

import { type AuditRecorder, changed } from '@svc/audit';
import { KeySetFullError, keyLifecycle, OIDC_SCOPE, type RotationWindows } from '@svc/keyring';
import type { Clock } from '@svc/platform';
import type { Kek } from '@svc/token-core';
import { ProvisioningError } from '../errors';
import type { Uses } from './ports';
import { appByAnchor } from './tenancy';

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

/** A key set an operator changes: an application's (named by its anchor) or the platform OIDC one. */
interface KeyScope {
  id: string;
  /** The audit target: an application (by anchor) or the platform OIDC key set. */
  target: { type: string; id: string };
  /** How refusals name the set. */
  name: string;
  /** Where a revoked kid was not found. */
  missing: string;
  /** Tells the hosts the set changed (an application's set, when keyChanges is bound). */
  announce?: () => Promise<void>;
}

const OIDC_KEYS: KeyScope = {
  id: OIDC_SCOPE,
  target: { type: 'oidc_key_set', id: 'oidc' },
  name: 'the platform OIDC key set',
  missing: 'in the platform OIDC key set',
};

async function applicationKeys(ports: Uses<'tenancy' | 'keyChanges'>, anchor: string): Promise<KeyScope> {
  const app = await appByAnchor(ports, anchor);
  const changes = ports.keyChanges;
  return {
    id: app.id,
    target: { type: 'application', id: anchor },
    name: anchor,
    missing: 'for this application',
    announce: changes && (() => changes.publish(app.id)),
  };
}

/** The waiting NEXT key (or a fresh one) signs at once; the hosts are told, then the published kids returned. */
async function rotateNow(
  ports: Uses<'signingKeys'>,
  kek: Kek,
  scope: KeyScope,
  windows: RotationWindows,
  clock: Clock,
  audit: AuditRecorder,
) {
  const at = new Date(clock());
  const moved = await refusingFullSet(scope.name, () =>
    keyLifecycle.activateNextKey(ports.signingKeys, kek, scope.id, {
      force: true,
      keyCacheTtlMs: windows.keyCacheTtlMs,
      at,
    }),
  );
  audit.record({
    action: 'keys.rotate',
    target: scope.target,
    changes: { signingKid: changed(moved.retired, moved.activated), mode: changed(null, 'now') },
  });
  await scope.announce?.();
  return { kids: await keyLifecycle.publishedKids(ports.signingKeys, scope.id, at) };
}

/**
 * A new key is prepublished and signs only after `windows.publishedSeconds` (the worker's rotation tick); nothing is
 * announced, as hosts find a published key when their key cache turns over.
 */
async function rotatePrepublished(
  ports: Uses<'signingKeys'>,
  kek: Kek,
  scope: KeyScope,
  windows: RotationWindows,
  clock: Clock,
  audit: AuditRecorder,
) {
  const at = new Date(clock());
  const next = await refusingFullSet(scope.name, () =>
    keyLifecycle.prepublishRotation(ports.signingKeys, kek, scope.id, windows, at),
  );
  audit.record({
    action: 'keys.prepublish',
    target: scope.target,
    changes: {
      nextKid: changed(null, next.next),
      activatesAt: changed(null, next.activatesAt),
      mode: changed(null, 'prepublished'),
    },
  });
  return { kids: await keyLifecycle.publishedKids(ports.signingKeys, scope.id, at) };
}

/** The key leaves the JWK Set at once (a new signer if it signed); the hosts are told. */
async function revokeNow(
  ports: Uses<'signingKeys'>,
  kek: Kek,
  scope: KeyScope,
  kid: string,
  clock: Clock,
  audit: AuditRecorder,
) {
  const at = new Date(clock());
  const res = await keyLifecycle.revokeKey(ports.signingKeys, kek, scope.id, kid, at);
  if (!res.found) throw new ProvisioningError(`signing key not found ${scope.missing}`);
  audit.record({
    action: 'keys.revoke',
    target: scope.target,
    changes: { revokedKid: changed(kid, null), replacementKid: changed(null, res.replacement ?? null) },
  });
  await scope.announce?.();
  return { kids: await keyLifecycle.publishedKids(ports.signingKeys, scope.id, at) };
}

/** `keys rotate --now`: the application's waiting NEXT key (or a fresh one) signs at once. */
export async function rotateKeysNow(
  ports: Uses<'changes'>,
  kek: Kek,
  anchor: string,
  windows: RotationWindows,
  clock: Clock,
) {
  return ports.changes.run(async (tx, audit) =>
    rotateNow(tx, kek, await applicationKeys(tx, anchor), windows, clock, audit),
  );
}

/**
 * `keys rotate`: the new key is prepublished and signs only once it has been published for
 * `windows.publishedSeconds` (the JWK Set cache lifetime; the worker's rotation tick activates it then).
 */
export async function rotateKeysPrepublished(
  ports: Uses<'changes'>,
  kek: Kek,
  anchor: string,
  windows: RotationWindows,
  clock: Clock,
) {
  return ports.changes.run(async (tx, audit) =>
    rotatePrepublished(tx, kek, await applicationKeys(tx, anchor), windows, clock, audit),
  );
}

/** `keys revoke`: emergency revocation of one of the application's keys. */
export async function revokeKeyNow(
  ports: Uses<'changes'>,
  kek: Kek,
  anchor: string,
  kid: string,
  clock: Clock,
) {
  return ports.changes.run(async (tx, audit) =>
    revokeNow(tx, kek, await applicationKeys(tx, anchor), kid, clock, audit),
  );
}

/** `keys rotate --oidc --now`: the platform ID-token key set gets a new signer at once. */
export async function rotateOidcKeysNow(
  ports: Uses<'changes'>,
  kek: Kek,
  windows: RotationWindows,
  clock: Clock,
) {
  return ports.changes.run((tx, audit) => rotateNow(tx, kek, OIDC_KEYS, windows, clock, audit));
}

/** `keys rotate --oidc`: a new platform ID-token key is prepublished and signs after `windows.publishedSeconds`. */
export async function rotateOidcKeysPrepublished(
  ports: Uses<'changes'>,
  kek: Kek,
  windows: RotationWindows,
  clock: Clock,
) {
  return ports.changes.run((tx, audit) => rotatePrepublished(tx, kek, OIDC_KEYS, windows, clock, audit));
}

/** `keys revoke --oidc --kid K`: the platform ID-token key leaves the JWKS at once (a new signer if it signed). */
export async function revokeOidcKeyNow(ports: Uses<'changes'>, kek: Kek, kid: string, clock: Clock) {
  return ports.changes.run((tx, audit) => revokeNow(tx, kek, OIDC_KEYS, kid, clock, audit));
}

export async function listSessions(
  ports: Uses<'tenancy' | 'sectorSubjects' | 'sessions'>,
  anchor: string,
  subject: string,
  clock: Clock,
) {
  const app = await appByAnchor(ports, anchor);
  const subj = await ports.sectorSubjects.findBySubject(app.sectorId, subject);
  if (subj?.principalKind !== 'ACCOUNT') return { sessions: [] };
  const rows = await ports.sessions.list(app.id, subj.principalId, 500);
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
export async function moveSession(
  ports: Uses<'changes' | 'sessions'>,
  sid: string,
  move: SessionMove,
  clock: Clock,
) {
  const { from, to, done } = MOVES[move];
  const now = new Date(clock());
  const moved = await ports.changes.run(async (tx, audit) => {
    if (!(await tx.sessions.moveStatus(sid, { from, to }, now))) return false;
    audit.record({
      action: `session.${move}`,
      target: { type: 'session', id: sid },
      changes: { status: changed(from, to) },
    });
    return true;
  });
  if (moved) return { sid, status: to.toLowerCase() };
  const row = await ports.sessions.status(sid);
  if (!row) throw new ProvisioningError('session not found');
  const live = row.status === 'ACTIVE' || row.status === 'SUSPENDED';
  const status = live && row.expiresAt <= now ? 'expired' : row.status.toLowerCase();
  if (status === to.toLowerCase()) return { sid, status: to.toLowerCase() };
  throw new ProvisioningError(`the session is ${status}; only ${from.toLowerCase()} sessions can be ${done}`);
}
