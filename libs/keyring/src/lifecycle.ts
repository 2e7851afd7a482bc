// Signing-key lifecycle: NEXT (prepublished) -> ACTIVE (signs) -> RETIRING (published until its tokens expire)
// -> EXPIRED; or REVOKED at once. Every change runs in a transaction that locks the scope's keys and refuses to
// leave a scope without an active signer.
import type { Db } from '@svc/db';
import { generateSigningKey, type Kek, REFRESH_TTL } from '@svc/token-core';
import { OIDC_SCOPE } from './key-ring';

type Tx = Parameters<Parameters<Db['$transaction']>[0]>[0];

function scopeWhere(scopeId: string) {
  return scopeId === OIDC_SCOPE
    ? { scope: 'OIDC' as const, applicationId: null }
    : { scope: 'APPLICATION' as const, applicationId: scopeId };
}

async function lockScope(tx: Tx, scopeId: string): Promise<void> {
  // One advisory lock per scope serializes rotations from admins and workers across all replicas.
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`signing-keys:${scopeId}`}))`;
}

/** Latest moment a token signed now by this scope could still be valid. */
async function outstandingUntil(tx: Tx, scopeId: string, at: Date): Promise<Date> {
  if (scopeId === OIDC_SCOPE) return new Date(at.getTime() + REFRESH_TTL.max * 1000);
  const agg = await tx.session.aggregate({ where: { applicationId: scopeId }, _max: { expiresAt: true } });
  const latest = agg._max.expiresAt?.getTime() ?? at.getTime();
  return new Date(Math.max(latest, at.getTime()));
}

function insertKey(tx: Tx, kek: Kek, scopeId: string, status: 'NEXT' | 'ACTIVE', at: Date, activatesAt?: Date) {
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
  });
}

/** Prepublishes a NEXT key that becomes the signer at `activatesAt` (no-op if one is already waiting). */
export async function prepublishNextKey(db: Db, kek: Kek, scopeId: string, activatesAt: Date, at = new Date()) {
  return db.$transaction(async (tx) => {
    await lockScope(tx, scopeId);
    const waiting = await tx.signingKey.findFirst({ where: { ...scopeWhere(scopeId), status: 'NEXT' } });
    if (waiting) return { kid: waiting.kid, created: false };
    return { kid: (await insertKey(tx, kek, scopeId, 'NEXT', at, activatesAt)).kid, created: true };
  });
}

/**
 * Promotes the NEXT key whose time has come (or, with `force`, any NEXT key or a fresh one) to ACTIVE and retires
 * the old signer, which stays published until every token it signed has expired.
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
    const where = scopeWhere(scopeId);
    let next = await tx.signingKey.findFirst({ where: { ...where, status: 'NEXT' }, orderBy: { createdAt: 'asc' } });
    if (next && !opts.force && next.activatesAt && next.activatesAt > at) return {};
    if (!next) {
      if (!opts.force) return {};
      next = await insertKey(tx, kek, scopeId, 'NEXT', at);
    }
    const old = await tx.signingKey.findFirst({ where: { ...where, status: 'ACTIVE' } });
    if (old) {
      await tx.signingKey.update({
        where: { id: old.id },
        data: { status: 'RETIRING', retiredAt: at, publishUntil: await outstandingUntil(tx, scopeId, at) },
      });
    }
    await tx.signingKey.update({ where: { id: next.id }, data: { status: 'ACTIVE', activatedAt: at } });
    return { activated: next.kid, retired: old?.kid };
  });
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
      const next = await tx.signingKey.findFirst({ where: { ...where, status: 'NEXT' }, orderBy: { createdAt: 'asc' } });
      if (next) {
        await tx.signingKey.update({ where: { id: next.id }, data: { status: 'ACTIVE', activatedAt: at } });
        replacement = next.kid;
      } else {
        replacement = (await insertKey(tx, kek, scopeId, 'ACTIVE', at)).kid;
      }
    }
    return { found: true as const, replacement };
  });
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
