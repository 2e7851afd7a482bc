// Signing-key lifecycle: NEXT (prepublished) -> ACTIVE (signs) -> RETIRING (published until its tokens expire)
// -> EXPIRED; or REVOKED at once. Every change runs in a transaction that locks the scope's keys and refuses to
// leave a scope without an active signer, or to publish more than MAX_JWKS_KEYS (32) keys: a retiring key stays
// published while its tokens can be valid, so the set is never cut and a rotation that would overfill it is refused.
// The platform OIDC set is the exception: it publishes the most recently retired key only (see keepOneRetired).
import { generateSigningKey, type Kek, MAX_JWKS_KEYS, REFRESH_TTL } from '@svc/token-core';
import { OIDC_SCOPE, type ScopeKeys, type SigningKeyStore } from './ports';
import type { KeySchedule } from './schedule';

/**
 * How long after a key retires a host may still sign with it: hosts drop their cached signer on the pub/sub key
 * change at once, but one that missed the message keeps it until its cache TTL (KEY_CACHE_TTL_MS) runs out.
 */
function staleSignerGraceMs(keyCacheTtlMs: number): number {
  return Math.max(keyCacheTtlMs, 0) + 60_000;
}

/**
 * Latest moment a token signed by this scope's retiring key could still be valid: the newest session expiry, and
 * any session a host with a stale cached signer could still start during the grace period (with the longest
 * refresh lifetime a new session can get: rules can only narrow the default).
 */
async function outstandingUntil(keys: ScopeKeys, scopeId: string, at: Date, keyCacheTtlMs: number) {
  // The OIDC set's retired key stays until the next retirement replaces it (keepOneRetired), for id_token_hint, which
  // names expired ID tokens too; a year bounds it when rotations stop.
  if (scopeId === OIDC_SCOPE) return new Date(at.getTime() + REFRESH_TTL.max * 1000);
  const { latestExpiry, longestRuledRefreshTtl } = await keys.sessionHorizon();
  const longestRefreshTtl = Math.min(
    Math.max(REFRESH_TTL.default, longestRuledRefreshTtl ?? 0),
    REFRESH_TTL.max,
  );
  const latest = latestExpiry?.getTime() ?? at.getTime();
  const staleSigned = at.getTime() + staleSignerGraceMs(keyCacheTtlMs) + longestRefreshTtl * 1000;
  return new Date(Math.max(latest, staleSigned));
}

/**
 * The platform OIDC set publishes the active key, a prepublished next key if there is one, and the most recently
 * retired key only (the spec: "both the active and the recently retired key"), so at most three whatever the history
 * of rotations: every other retiring key of the scope becomes EXPIRED. ID tokens live at most a day
 * (OIDC_ID_TOKEN_TTL_SECONDS) while keys rotate every KEY_ROTATE_EVERY_SECONDS (30 days by default), so under the
 * normal schedule the one retired key covers every ID token still valid; it also bounds the id_token_hint window
 * (docs/oidc.md). Application scopes keep every retiring key for their access and refresh tokens. Returns how many
 * keys left the set.
 */
function keepOneRetired(keys: ScopeKeys, scopeId: string): Promise<number> {
  return scopeId === OIDC_SCOPE ? keys.expireAllButNewestRetiring() : Promise.resolve(0);
}

/** A rotation would publish more than MAX_JWKS_KEYS keys in one scope; nothing was changed. */
export class KeySetFullError extends Error {
  constructor(
    readonly scopeId: string,
    readonly published: number,
    /** When the first retiring key leaves the set (its tokens have all expired). */
    readonly roomAt: Date | undefined,
  ) {
    super(`the JWK Set already publishes ${published} keys (at most ${MAX_JWKS_KEYS})`);
    this.name = 'KeySetFullError';
  }
}

/** Throws KeySetFullError when one more key would publish more than MAX_JWKS_KEYS in the scope. */
async function assertRoomForKey(keys: ScopeKeys, scopeId: string, at: Date): Promise<void> {
  const { count, roomAt } = await keys.publishedCount(at);
  if (count + 1 > MAX_JWKS_KEYS) throw new KeySetFullError(scopeId, count, roomAt);
}

/** A new key generated under the KEK and stored with `status`. */
function insertKey(keys: ScopeKeys, kek: Kek, status: 'NEXT' | 'ACTIVE', at: Date, activatesAt?: Date) {
  return keys.insert(generateSigningKey(kek), status, at, activatesAt);
}

/** Makes sure a scope has an active signer (first key of a new application, or the OIDC key). */
export async function ensureActiveKey(
  store: SigningKeyStore,
  kek: Kek,
  scopeId: string,
  at: Date,
): Promise<string> {
  return store.withLockedScope(scopeId, async (keys) => {
    const active = await keys.active();
    if (active) return active.kid;
    return (await insertKey(keys, kek, 'ACTIVE', at)).kid;
  });
}

/** Prepublishes a NEXT key that becomes the signer at `activatesAt` (no-op if one is already waiting). */
export async function prepublishNextKey(
  store: SigningKeyStore,
  kek: Kek,
  scopeId: string,
  activatesAt: Date,
  at: Date,
) {
  return store.withLockedScope(scopeId, async (keys) => {
    const waiting = await keys.firstNext();
    if (waiting) return { kid: waiting.kid, created: false };
    await assertRoomForKey(keys, scopeId, at);
    return { kid: (await insertKey(keys, kek, 'NEXT', at, activatesAt)).kid, created: true };
  });
}

/** Makes `next` the signer at `at` and retires the old one, which stays published while its tokens can be valid. */
async function activate(
  keys: ScopeKeys,
  scopeId: string,
  next: { id: string; kid: string },
  at: Date,
  keyCacheTtlMs: number,
) {
  const old = await keys.active();
  if (old) await keys.retire(old.id, at, await outstandingUntil(keys, scopeId, at, keyCacheTtlMs));
  await keys.activate(next.id, at);
  await keepOneRetired(keys, scopeId);
  return { activated: next.kid, retired: old?.kid };
}

/**
 * Promotes the NEXT key whose time has come (or, with `force`, any NEXT key or a fresh one) to ACTIVE and retires
 * the old signer, which stays published until every token it signed has expired (`keyCacheTtlMs`: the hosts'
 * KEY_CACHE_TTL_MS). A fresh key is refused with KeySetFullError when the set already holds MAX_JWKS_KEYS keys.
 */
export async function activateNextKey(
  store: SigningKeyStore,
  kek: Kek,
  scopeId: string,
  opts: { keyCacheTtlMs: number; at: Date; force?: boolean },
): Promise<{ activated?: string; retired?: string }> {
  const { at } = opts;
  return store.withLockedScope(scopeId, async (keys) => {
    let next = await keys.firstNext();
    if (next && !opts.force && next.activatesAt && next.activatesAt > at) return {};
    if (!next) {
      if (!opts.force) return {};
      await assertRoomForKey(keys, scopeId, at);
      next = await insertKey(keys, kek, 'NEXT', at);
    }
    return activate(keys, scopeId, next, at, opts.keyCacheTtlMs);
  });
}

/** An operator's rotation windows: how long a new key is published before it signs, and the hosts' key cache life. */
export interface RotationWindows {
  /** The JWK Set cache lifetime plus the hosts' key cache lifetime (rotationPrepublishSeconds). */
  publishedSeconds: number;
  /** The hosts' KEY_CACHE_TTL_MS (how long a retiring key may still sign on a host that missed the change). */
  keyCacheTtlMs: number;
}

export interface PrepublishedRotation {
  /** The key that signs from `activatesAt` (the worker's rotation tick activates it then). */
  next: string;
  activatesAt: Date;
  /** Set when a waiting NEXT key had been published long enough and was made the signer at once. */
  activated?: string;
  retired?: string;
}

/**
 * An operator's rotation that keeps verifiers safe: the new key signs only once it has been published for
 * `publishedSeconds` (the JWK Set cache lifetime), so every verifier's cached set holds it first. A NEXT key
 * already waiting is reused: made the signer at once when it has been published that long, else brought forward to
 * then. Otherwise a NEXT key is prepublished (refused with KeySetFullError when the set is full).
 */
export async function prepublishRotation(
  store: SigningKeyStore,
  kek: Kek,
  scopeId: string,
  opts: RotationWindows,
  at: Date,
): Promise<PrepublishedRotation> {
  return store.withLockedScope(scopeId, async (keys) => {
    const next = await keys.firstNext();
    if (next) {
      const publishedLongEnough = new Date(next.createdAt.getTime() + opts.publishedSeconds * 1000);
      if (publishedLongEnough <= at)
        return {
          next: next.kid,
          activatesAt: at,
          ...(await activate(keys, scopeId, next, at, opts.keyCacheTtlMs)),
        };
      const activatesAt =
        next.activatesAt && next.activatesAt < publishedLongEnough ? next.activatesAt : publishedLongEnough;
      await keys.setActivatesAt(next.id, activatesAt);
      return { next: next.kid, activatesAt };
    }
    await assertRoomForKey(keys, scopeId, at);
    const activatesAt = new Date(at.getTime() + opts.publishedSeconds * 1000);
    return { next: (await insertKey(keys, kek, 'NEXT', at, activatesAt)).kid, activatesAt };
  });
}

/** Moves retiring keys past their publication window to EXPIRED (omitted from the JWK Set). */
export function expireRetiredKeys(store: SigningKeyStore, scopeId: string, at: Date): Promise<number> {
  return store.scopeKeys(scopeId).expireRetired(at);
}

/**
 * Emergency revocation: the key leaves the JWK Set and stops signing at once. Revoking the active signer promotes
 * a waiting NEXT key or makes a fresh one, so the scope is never left without a signer.
 */
export async function revokeKey(store: SigningKeyStore, kek: Kek, scopeId: string, kid: string, at: Date) {
  return store.withLockedScope(scopeId, async (keys) => {
    const key = await keys.byKid(kid);
    if (!key) return { found: false as const };
    if (key.status === 'REVOKED') return { found: true as const, replacement: undefined };
    await keys.revoke(key.id, at);
    let replacement: string | undefined;
    if (key.status === 'ACTIVE') {
      const next = await keys.firstNext();
      if (next) {
        await keys.activate(next.id, at);
        replacement = next.kid;
      } else {
        replacement = (await insertKey(keys, kek, 'ACTIVE', at)).kid;
      }
    }
    return { found: true as const, replacement };
  });
}

/** The kids currently published for a scope, newest first. */
export function publishedKids(store: SigningKeyStore, scopeId: string, at: Date): Promise<string[]> {
  return store.scopeKeys(scopeId).publishedKids(at);
}

export interface ScheduledRotationResult {
  /** A first ACTIVE key was made because the scope had none. */
  created?: string;
  prepublished?: string;
  activated?: string;
  retired?: string;
  expired: number;
  /** True when the published set or the signer changed: hosts must be told (publishKeyChange). */
  changed: boolean;
  /** A successor was due but the set already holds MAX_JWKS_KEYS keys: nothing was prepublished. */
  keySetFull?: { published: number; roomAt?: Date };
}

/**
 * One scheduled lifecycle step for a scope, decided and applied under the scope lock so that racing workers (or an
 * admin) can never rotate twice: activate a NEXT key whose time has come (retiring the old signer), prepublish a
 * NEXT key once the active one is older than ROTATE_EVERY - PREPUBLISH (it activates at activatedAt + ROTATE_EVERY,
 * but never less than PREPUBLISH after it is published), and expire retiring keys past their publication window.
 */
export async function runScheduledRotation(
  store: SigningKeyStore,
  kek: Kek,
  scopeId: string,
  schedule: KeySchedule,
  at: Date,
): Promise<ScheduledRotationResult> {
  return store.withLockedScope(scopeId, async (keys) => {
    const result: ScheduledRotationResult = { expired: 0, changed: false };
    let active = await keys.active();
    if (!active) {
      active = await insertKey(keys, kek, 'ACTIVE', at);
      result.created = active.kid;
    }
    let next = await keys.firstNext();
    if (next?.activatesAt && next.activatesAt <= at) {
      await keys.retire(active.id, at, await outstandingUntil(keys, scopeId, at, schedule.keyCacheTtlMs));
      result.retired = active.kid;
      result.activated = next.kid;
      active = await keys.activate(next.id, at);
      next = undefined;
    }
    // Every tick, not only at a rotation: a set that holds more retired keys (from before the rule) is cut at once.
    result.expired = (await keys.expireRetired(at)) + (await keepOneRetired(keys, scopeId));
    const activatedAt = (active.activatedAt ?? active.createdAt).getTime();
    const dueAt = activatedAt + (schedule.rotateEverySeconds - schedule.prepublishSeconds) * 1000;
    if (!next && dueAt <= at.getTime()) {
      const { count, roomAt } = await keys.publishedCount(at);
      if (count + 1 > MAX_JWKS_KEYS) {
        // The set is full of keys whose tokens can still be valid: the active key keeps signing until one leaves.
        result.keySetFull = { published: count, roomAt };
      } else {
        const activatesAt = new Date(
          Math.max(
            activatedAt + schedule.rotateEverySeconds * 1000,
            at.getTime() + schedule.prepublishSeconds * 1000,
          ),
        );
        result.prepublished = (await insertKey(keys, kek, 'NEXT', at, activatesAt)).kid;
      }
    }
    result.changed = !!(result.created || result.activated || result.prepublished || result.expired);
    return result;
  });
}
