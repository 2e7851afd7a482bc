// Operator actions on signing keys (rotate now, emergency revoke) and on sessions (listing, suspension).
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
  /** How refusals name the set. */
  name: string;
  /** Where a revoked kid was not found. */
  missing: string;
  /** Tells the hosts the set changed (an application's set, when keyChanges is bound). */
  announce?: () => Promise<void>;
}

const OIDC_KEYS: KeyScope = {
  id: OIDC_SCOPE,
  name: 'the platform OIDC key set',
  missing: 'in the platform OIDC key set',
};

async function applicationKeys(ports: Uses<'tenancy' | 'keyChanges'>, anchor: string): Promise<KeyScope> {
  const app = await appByAnchor(ports, anchor);
  const changes = ports.keyChanges;
  return {
    id: app.id,
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
) {
  const at = new Date(clock());
  await refusingFullSet(scope.name, () =>
    keyLifecycle.activateNextKey(ports.signingKeys, kek, scope.id, {
      force: true,
      keyCacheTtlMs: windows.keyCacheTtlMs,
      at,
    }),
  );
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
) {
  const at = new Date(clock());
  await refusingFullSet(scope.name, () =>
    keyLifecycle.prepublishRotation(ports.signingKeys, kek, scope.id, windows, at),
  );
  return { kids: await keyLifecycle.publishedKids(ports.signingKeys, scope.id, at) };
}

/** The key leaves the JWK Set at once (a new signer if it signed); the hosts are told. */
async function revokeNow(ports: Uses<'signingKeys'>, kek: Kek, scope: KeyScope, kid: string, clock: Clock) {
  const at = new Date(clock());
  const res = await keyLifecycle.revokeKey(ports.signingKeys, kek, scope.id, kid, at);
  if (!res.found) throw new ProvisioningError(`signing key not found ${scope.missing}`);
  await scope.announce?.();
  return { kids: await keyLifecycle.publishedKids(ports.signingKeys, scope.id, at) };
}

/** `keys rotate --now`: the application's waiting NEXT key (or a fresh one) signs at once. */
export async function rotateKeysNow(
  ports: Uses<'tenancy' | 'signingKeys' | 'keyChanges'>,
  kek: Kek,
  anchor: string,
  windows: RotationWindows,
  clock: Clock,
) {
  return rotateNow(ports, kek, await applicationKeys(ports, anchor), windows, clock);
}

/**
 * `keys rotate`: the new key is prepublished and signs only once it has been published for
 * `windows.publishedSeconds` (the JWK Set cache lifetime; the worker's rotation tick activates it then).
 */
export async function rotateKeysPrepublished(
  ports: Uses<'tenancy' | 'signingKeys'>,
  kek: Kek,
  anchor: string,
  windows: RotationWindows,
  clock: Clock,
) {
  return rotatePrepublished(ports, kek, await applicationKeys(ports, anchor), windows, clock);
}

/** `keys revoke`: emergency revocation of one of the application's keys. */
export async function revokeKeyNow(
  ports: Uses<'tenancy' | 'signingKeys' | 'keyChanges'>,
  kek: Kek,
  anchor: string,
  kid: string,
  clock: Clock,
) {
  return revokeNow(ports, kek, await applicationKeys(ports, anchor), kid, clock);
}

/** `keys rotate --oidc --now`: the platform ID-token key set gets a new signer at once. */
export async function rotateOidcKeysNow(
  ports: Uses<'signingKeys'>,
  kek: Kek,
  windows: RotationWindows,
  clock: Clock,
) {
  return rotateNow(ports, kek, OIDC_KEYS, windows, clock);
}

/** `keys rotate --oidc`: a new platform ID-token key is prepublished and signs after `windows.publishedSeconds`. */
export async function rotateOidcKeysPrepublished(
  ports: Uses<'signingKeys'>,
  kek: Kek,
  windows: RotationWindows,
  clock: Clock,
) {
  return rotatePrepublished(ports, kek, OIDC_KEYS, windows, clock);
}

/** `keys revoke --oidc --kid K`: the platform ID-token key leaves the JWKS at once (a new signer if it signed). */
export async function revokeOidcKeyNow(ports: Uses<'signingKeys'>, kek: Kek, kid: string, clock: Clock) {
  return revokeNow(ports, kek, OIDC_KEYS, kid, clock);
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
export async function moveSession(ports: Uses<'sessions'>, sid: string, move: SessionMove, clock: Clock) {
  const { from, to, done } = MOVES[move];
  const now = new Date(clock());
  if (await ports.sessions.moveStatus(sid, { from, to }, now)) return { sid, status: to.toLowerCase() };
  const row = await ports.sessions.status(sid);
  if (!row) throw new ProvisioningError('session not found');
  const live = row.status === 'ACTIVE' || row.status === 'SUSPENDED';
  const status = live && row.expiresAt <= now ? 'expired' : row.status.toLowerCase();
  if (status === to.toLowerCase()) return { sid, status: to.toLowerCase() };
  throw new ProvisioningError(`the session is ${status}; only ${from.toLowerCase()} sessions can be ${done}`);
}
