// Signing-key lifecycle: NEXT (prepublished) -> ACTIVE (signs) -> RETIRING (published until its tokens expire)
// -> EXPIRED; or REVOKED at once. Every change runs in a transaction that locks the scope's keys and refuses to
// leave a scope without an active signer, or to publish more than MAX_JWKS_KEYS (32) keys: a retiring key stays
// published while its tokens can be valid, so the set is never cut and a rotation that would overfill it is refused.
import type { Db } from '@svc/db';
import { generateSigningKey, type Kek, MAX_JWKS_KEYS, REFRESH_TTL } from '@svc/token-core';
import { OIDC_SCOPE } from './key-ring';
import type { KeySchedule } from './schedule';

type Tx = Parameters<Parameters<Db['$transaction']>[0]>[0];

/**
 * Lifecycle transactions generate RSA-2048 keys while they hold the scope's lock (so two operators or workers never
 * both add one). Generation takes from tens of ms to over a second on a busy machine, so they get more room than
 * Prisma's 5 s default before the transaction is cut.
 */
const KEY_TX = { maxWait: 10_000, timeout: 30_000 } as const;

function scopeWhere(scopeId: string) {
  return scopeId === OIDC_SCOPE
    ? { scope: 'OIDC' as const, applicationId: null }
    : { scope: 'APPLICATION' as const, applicationId: scopeId };
}

async function lockScope(tx: Tx, scopeId: string): Promise<void> {
  // One advisory lock per scope serializes rotations from admins and workers across all replicas.
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`signing-keys:${scopeId}`}))`;
}

/**
 * How long after a key retires a host may still sign with it: hosts drop their cached signer on the pub/sub key
 * change at once, but one that missed the message keeps it until its cache TTL (KEY_CACHE_TTL_MS) runs out.
 */
function staleSignerGraceMs(): number {
  return Math.max(Number(process.env.KEY_CACHE_TTL_MS ?? 30_000), 0) + 60_000;
}

/** Longest refresh lifetime a new session of this application can get (rules can only narrow the default). */
async function longestRefreshTtl(tx: Tx, applicationId: string): Promise<number> {
  const agg = await tx.authenticationRule.aggregate({ where: { applicationId }, _max: { refreshTtl: true } });
  const ruled = agg._max.refreshTtl ?? 0;
  return Math.min(Math.max(REFRESH_TTL.default, ruled), REFRESH_TTL.max);
}

/**
 * Latest moment a token signed by this scope's retiring key could still be valid: the newest session expiry, and
 * any session a host with a stale cached signer could still start during the grace period.
 */
async function outstandingUntil(tx: Tx, scopeId: string, at: Date): Promise<Date> {
  if (scopeId === OIDC_SCOPE) return new Date(at.getTime() + REFRESH_TTL.max * 1000);
  const agg = await tx.session.aggregate({ where: { applicationId: scopeId }, _max: { expiresAt: true } });
  const latest = agg._max.expiresAt?.getTime() ?? at.getTime();
  const staleSigned = at.getTime() + staleSignerGraceMs() + (await longestRefreshTtl(tx, scopeId)) * 1000;
  return new Date(Math.max(latest, staleSigned));
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

/** The keys a scope publishes at `at` (NEXT, ACTIVE, RETIRING inside its window) and when the first one leaves. */
async function publishedCount(tx: Tx, scopeId: string, at: Date) {
  const where = scopeWhere(scopeId);
  const [held, retiring] = await Promise.all([
    tx.signingKey.count({ where: { ...where, status: { in: ['NEXT', 'ACTIVE'] } } }),
    tx.signingKey.findMany({
      where: { ...where, status: 'RETIRING', OR: [{ publishUntil: null }, { publishUntil: { gt: at } }] },
      select: { publishUntil: true },
      orderBy: { publishUntil: 'asc' },
    }),
  ]);
  return { count: held + retiring.length, roomAt: retiring[0]?.publishUntil ?? undefined };
}

/** Throws KeySetFullError when one more key would publish more than MAX_JWKS_KEYS in the scope. */
async function assertRoomForKey(tx: Tx, scopeId: string, at: Date): Promise<void> {
  const { count, roomAt } = await publishedCount(tx, scopeId, at);
  if (count + 1 > MAX_JWKS_KEYS) throw new KeySetFullError(scopeId, count, roomAt);
}

function insertKey(
  tx: Tx,
  kek: Kek,
  scopeId: string,
  status: 'NEXT' | 'ACTIVE',
  at: Date,
  activatesAt?: Date,
) {
  const g = generateSigningKey(kek);
  return tx.signingKey.create({
    data: {
      kid: g.kid,
      ...scopeWhere(scopeId),
      status,
      publicJwk: g.publicJwk as object,
      privateKeyEnc: g.privateKeyEnc,
      kekId: g.kekId,
      createdAt: at,
      activatesAt: activatesAt ?? at,
      activatedAt: status === 'ACTIVE' ? at : null,
    },
  });
}

/** Makes sure a scope has an active signer (first key of a new application, or the OIDC key). */
export async function ensureActiveKey(db: Db, kek: Kek, scopeId: string, at = new Date()): Promise<string> {
  return db.$transaction(async (tx) => {
    await lockScope(tx, scopeId);
    const active = await tx.signingKey.findFirst({ where: { ...scopeWhere(scopeId), status: 'ACTIVE' } });
    if (active) return active.kid;
    return (await insertKey(tx, kek, scopeId, 'ACTIVE', at)).kid;
  }, KEY_TX);
}

/** Prepublishes a NEXT key that becomes the signer at `activatesAt` (no-op if one is already waiting). */
export async function prepublishNextKey(
  db: Db,
  kek: Kek,
  scopeId: string,
  activatesAt: Date,
  at = new Date(),
) {
  return db.$transaction(async (tx) => {
    await lockScope(tx, scopeId);
    const waiting = await tx.signingKey.findFirst({ where: { ...scopeWhere(scopeId), status: 'NEXT' } });
    if (waiting) return { kid: waiting.kid, created: false };
    await assertRoomForKey(tx, scopeId, at);
    return { kid: (await insertKey(tx, kek, scopeId, 'NEXT', at, activatesAt)).kid, created: true };
  }, KEY_TX);
}

/** Makes `next` the signer at `at` and retires the old one, which stays published while its tokens can be valid. */
async function activate(tx: Tx, scopeId: string, next: { id: string; kid: string }, at: Date) {
  const old = await tx.signingKey.findFirst({ where: { ...scopeWhere(scopeId), status: 'ACTIVE' } });
  if (old) {
    await tx.signingKey.update({
      where: { id: old.id },
      data: { status: 'RETIRING', retiredAt: at, publishUntil: await outstandingUntil(tx, scopeId, at) },
    });
  }
  await tx.signingKey.update({ where: { id: next.id }, data: { status: 'ACTIVE', activatedAt: at } });
  return { activated: next.kid, retired: old?.kid };
}

/**
 * Promotes the NEXT key whose time has come (or, with `force`, any NEXT key or a fresh one) to ACTIVE and retires
 * the old signer, which stays published until every token it signed has expired. A fresh key is refused with
 * KeySetFullError when the set already holds MAX_JWKS_KEYS keys.
 */
export async function activateNextKey(
  db: Db,
  kek: Kek,
  scopeId: string,
  opts: { at?: Date; force?: boolean } = {},
): Promise<{ activated?: string; retired?: string }> {
  const at = opts.at ?? new Date();
  return db.$transaction(async (tx) => {
    await lockScope(tx, scopeId);
    let next = await tx.signingKey.findFirst({
      where: { ...scopeWhere(scopeId), status: 'NEXT' },
      orderBy: { createdAt: 'asc' },
    });
    if (next && !opts.force && next.activatesAt && next.activatesAt > at) return {};
    if (!next) {
      if (!opts.force) return {};
      await assertRoomForKey(tx, scopeId, at);
      next = await insertKey(tx, kek, scopeId, 'NEXT', at);
    }
    return activate(tx, scopeId, next, at);
  }, KEY_TX);
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
  db: Db,
  kek: Kek,
  scopeId: string,
  publishedSeconds: number,
  at = new Date(),
): Promise<PrepublishedRotation> {
  return db.$transaction(async (tx) => {
    await lockScope(tx, scopeId);
    const next = await tx.signingKey.findFirst({
      where: { ...scopeWhere(scopeId), status: 'NEXT' },
      orderBy: { createdAt: 'asc' },
    });
    if (next) {
      const publishedLongEnough = new Date(next.createdAt.getTime() + publishedSeconds * 1000);
      if (publishedLongEnough <= at)
        return { next: next.kid, activatesAt: at, ...(await activate(tx, scopeId, next, at)) };
      const activatesAt =
        next.activatesAt && next.activatesAt < publishedLongEnough ? next.activatesAt : publishedLongEnough;
      await tx.signingKey.update({ where: { id: next.id }, data: { activatesAt } });
      return { next: next.kid, activatesAt };
    }
    await assertRoomForKey(tx, scopeId, at);
    const activatesAt = new Date(at.getTime() + publishedSeconds * 1000);
    return { next: (await insertKey(tx, kek, scopeId, 'NEXT', at, activatesAt)).kid, activatesAt };
  }, KEY_TX);
}

/** Moves retiring keys past their publication window to EXPIRED (omitted from the JWK Set). */
export async function expireRetiredKeys(db: Db, scopeId: string, at = new Date()): Promise<number> {
  const res = await db.signingKey.updateMany({
    where: { ...scopeWhere(scopeId), status: 'RETIRING', publishUntil: { lte: at } },
    data: { status: 'EXPIRED' },
  });
  return res.count;
}

/**
 * Emergency revocation: the key leaves the JWK Set and stops signing at once. Revoking the active signer promotes
 * a waiting NEXT key or makes a fresh one, so the scope is never left without a signer.
 */
export async function revokeKey(db: Db, kek: Kek, scopeId: string, kid: string, at = new Date()) {
  return db.$transaction(async (tx) => {
    await lockScope(tx, scopeId);
    const where = scopeWhere(scopeId);
    const key = await tx.signingKey.findFirst({ where: { ...where, kid } });
    if (!key) return { found: false as const };
    if (key.status === 'REVOKED') return { found: true as const, replacement: undefined };
    await tx.signingKey.update({ where: { id: key.id }, data: { status: 'REVOKED', revokedAt: at } });
    let replacement: string | undefined;
    if (key.status === 'ACTIVE') {
      const next = await tx.signingKey.findFirst({
        where: { ...where, status: 'NEXT' },
        orderBy: { createdAt: 'asc' },
      });
      if (next) {
        await tx.signingKey.update({ where: { id: next.id }, data: { status: 'ACTIVE', activatedAt: at } });
        replacement = next.kid;
      } else {
        replacement = (await insertKey(tx, kek, scopeId, 'ACTIVE', at)).kid;
      }
    }
    return { found: true as const, replacement };
  }, KEY_TX);
}

/** The kids currently published for a scope, newest first. */
export async function publishedKids(db: Db, scopeId: string, at = new Date()): Promise<string[]> {
  const rows = await db.signingKey.findMany({
    where: {
      ...scopeWhere(scopeId),
      OR: [{ status: { in: ['NEXT', 'ACTIVE'] } }, { status: 'RETIRING', publishUntil: { gt: at } }],
    },
    orderBy: { createdAt: 'desc' },
    select: { kid: true },
  });
  return rows.map((r) => r.kid);
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
  db: Db,
  kek: Kek,
  scopeId: string,
  schedule: KeySchedule,
  at = new Date(),
): Promise<ScheduledRotationResult> {
  return db.$transaction(async (tx) => {
    await lockScope(tx, scopeId);
    const where = scopeWhere(scopeId);
    const result: ScheduledRotationResult = { expired: 0, changed: false };
    let active = await tx.signingKey.findFirst({ where: { ...where, status: 'ACTIVE' } });
    if (!active) {
      active = await insertKey(tx, kek, scopeId, 'ACTIVE', at);
      result.created = active.kid;
    }
    let next = await tx.signingKey.findFirst({
      where: { ...where, status: 'NEXT' },
      orderBy: { createdAt: 'asc' },
    });
    if (next?.activatesAt && next.activatesAt <= at) {
      await tx.signingKey.update({
        where: { id: active.id },
        data: { status: 'RETIRING', retiredAt: at, publishUntil: await outstandingUntil(tx, scopeId, at) },
      });
      result.retired = active.kid;
      result.activated = next.kid;
      active = await tx.signingKey.update({
        where: { id: next.id },
        data: { status: 'ACTIVE', activatedAt: at },
      });
      next = null;
    }
    const expired = await tx.signingKey.updateMany({
      where: { ...where, status: 'RETIRING', publishUntil: { lte: at } },
      data: { status: 'EXPIRED' },
    });
    result.expired = expired.count;
    const activatedAt = (active.activatedAt ?? active.createdAt).getTime();
    const dueAt = activatedAt + (schedule.rotateEverySeconds - schedule.prepublishSeconds) * 1000;
    if (!next && dueAt <= at.getTime()) {
      const { count, roomAt } = await publishedCount(tx, scopeId, at);
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
        result.prepublished = (await insertKey(tx, kek, scopeId, 'NEXT', at, activatesAt)).kid;
      }
    }
    result.changed = !!(result.created || result.activated || result.prepublished || result.expired);
    return result;
  }, KEY_TX);
}
