// Store of signing keys: every statement over signing_keys, by scope (an application's keys or the platform OIDC
// set), and the two aggregates a retiring key's publication window is computed from. It never decides: the key
// ring reads through it, the lifecycle decides from what it returns and asks it to write.
import type { Db } from '@svc/db';
import {
  OIDC_SCOPE,
  type RingKey,
  type ScopeKeys,
  type SealedKey,
  type SigningKeyStore,
} from '../domain/ports';

type Tx = Parameters<Parameters<Db['$transaction']>[0]>[0];
type Queries = Db | Tx;

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

const STATE = {
  id: true,
  kid: true,
  status: true,
  createdAt: true,
  activatesAt: true,
  activatedAt: true,
} as const;

/** The keys a scope may publish, newest first (the key ring's one read per scope load). */
async function readRingKeys(db: Db, scopeId: string): Promise<RingKey[]> {
  const rows = await db.signingKey.findMany({
    where: { ...scopeWhere(scopeId), status: { in: ['NEXT', 'ACTIVE', 'RETIRING'] } },
    orderBy: { createdAt: 'desc' },
    select: { kid: true, status: true, publicJwk: true, privateKeyEnc: true, publishUntil: true },
  });
  return rows as unknown as RingKey[];
}

/** ACTIVE keys of every scope with their sealed private keys, by id after `after`, at most `limit`. */
async function readActiveSealedKeys(db: Db, after: string | undefined, limit: number): Promise<SealedKey[]> {
  return db.signingKey.findMany({
    where: { status: 'ACTIVE', ...(after ? { id: { gt: after } } : {}) },
    orderBy: { id: 'asc' },
    take: limit,
    select: { id: true, kid: true, privateKeyEnc: true },
  });
}

/**
 * Application ids (ascending, after `after`, at most `limit`) with a NEXT key due at `at`, a RETIRING key past its
 * window at `at`, or an ACTIVE key activated by `prepublishFrom` and no NEXT key yet.
 */
async function readDueApplicationScopes(
  db: Db,
  q: { at: Date; prepublishFrom: Date; after: string; limit: number },
): Promise<string[]> {
  const rows = await db.$queryRaw<{ scope_id: string }[]>`
    SELECT DISTINCT k.application_id::text AS scope_id
    FROM signing_keys k
    WHERE k.scope = 'APPLICATION' AND k.application_id IS NOT NULL
      AND k.application_id::text > ${q.after}
      AND (
        (k.status = 'NEXT' AND k.activates_at <= ${q.at})
        OR (k.status = 'RETIRING' AND k.publish_until <= ${q.at})
        OR (k.status = 'ACTIVE' AND COALESCE(k.activated_at, k.created_at) <= ${q.prepublishFrom}
            AND NOT EXISTS (
              SELECT 1 FROM signing_keys n
              WHERE n.scope = 'APPLICATION' AND n.application_id = k.application_id AND n.status = 'NEXT'))
      )
    ORDER BY scope_id
    LIMIT ${q.limit}`;
  return rows.map((r) => r.scope_id);
}

function scopeKeys(q: Queries, scopeId: string): ScopeKeys {
  const where = scopeWhere(scopeId);
  const retiringWhere = (at: Date) => ({
    ...where,
    status: 'RETIRING' as const,
    OR: [{ publishUntil: null }, { publishUntil: { gt: at } }],
  });
  const first = (status: 'NEXT' | 'ACTIVE') =>
    q.signingKey
      .findFirst({ where: { ...where, status }, orderBy: { createdAt: 'asc' }, select: STATE })
      .then((k) => k ?? undefined);
  return {
    active: () => first('ACTIVE'),
    firstNext: () => first('NEXT'),
    byKid: (kid) =>
      q.signingKey.findFirst({ where: { ...where, kid }, select: STATE }).then((k) => k ?? undefined),
    insert: (key, status, at, activatesAt) =>
      q.signingKey.create({
        data: {
          kid: key.kid,
          ...where,
          status,
          publicJwk: key.publicJwk as object,
          privateKeyEnc: key.privateKeyEnc,
          kekId: key.kekId,
          createdAt: at,
          activatesAt: activatesAt ?? at,
          activatedAt: status === 'ACTIVE' ? at : null,
        },
        select: STATE,
      }),
    activate: (id, at) =>
      q.signingKey.update({ where: { id }, data: { status: 'ACTIVE', activatedAt: at }, select: STATE }),
    async retire(id, at, publishUntil) {
      await q.signingKey.update({ where: { id }, data: { status: 'RETIRING', retiredAt: at, publishUntil } });
    },
    async setActivatesAt(id, activatesAt) {
      await q.signingKey.update({ where: { id }, data: { activatesAt } });
    },
    async revoke(id, at) {
      await q.signingKey.update({ where: { id }, data: { status: 'REVOKED', revokedAt: at } });
    },
    async expireRetired(at) {
      const res = await q.signingKey.updateMany({
        where: { ...where, status: 'RETIRING', publishUntil: { lte: at } },
        data: { status: 'EXPIRED' },
      });
      return res.count;
    },
    async expireAllButNewestRetiring() {
      const newest = await q.signingKey.findFirst({
        where: { ...where, status: 'RETIRING' },
        orderBy: [{ retiredAt: { sort: 'desc', nulls: 'last' } }, { createdAt: 'desc' }],
        select: { id: true },
      });
      if (!newest) return 0;
      const res = await q.signingKey.updateMany({
        where: { ...where, status: 'RETIRING', id: { not: newest.id } },
        data: { status: 'EXPIRED' },
      });
      return res.count;
    },
    async publishedCount(at) {
      const [held, retiring] = await Promise.all([
        q.signingKey.count({ where: { ...where, status: { in: ['NEXT', 'ACTIVE'] } } }),
        q.signingKey.findMany({
          where: retiringWhere(at),
          select: { publishUntil: true },
          orderBy: { publishUntil: 'asc' },
        }),
      ]);
      return { count: held + retiring.length, roomAt: retiring[0]?.publishUntil ?? undefined };
    },
    async publishedKids(at) {
      const rows = await q.signingKey.findMany({
        where: {
          ...where,
          OR: [{ status: { in: ['NEXT', 'ACTIVE'] } }, { status: 'RETIRING', publishUntil: { gt: at } }],
        },
        orderBy: { createdAt: 'desc' },
        select: { kid: true },
      });
      return rows.map((r) => r.kid);
    },
    async sessionHorizon() {
      const [sessions, rules] = await Promise.all([
        q.session.aggregate({ where: { applicationId: scopeId }, _max: { expiresAt: true } }),
        q.authenticationRule.aggregate({ where: { applicationId: scopeId }, _max: { refreshTtl: true } }),
      ]);
      return {
        latestExpiry: sessions._max.expiresAt ?? undefined,
        longestRuledRefreshTtl: rules._max.refreshTtl ?? undefined,
      };
    },
  };
}

/**
 * Runs `work` in one transaction holding the scope's advisory lock, which serializes lifecycle changes from
 * admins and workers across all replicas.
 */
function withLockedScope<T>(db: Db, scopeId: string, work: (keys: ScopeKeys) => Promise<T>): Promise<T> {
  return db.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`signing-keys:${scopeId}`}))`;
    return work(scopeKeys(tx, scopeId));
  }, KEY_TX);
}

/** The signing-key store over a database: the reads above and the scope's locked transaction, as one port. */
export function createSigningKeyStore(db: Db): SigningKeyStore {
  return {
    readRingKeys: (scopeId) => readRingKeys(db, scopeId),
    readActiveSealedKeys: (after, limit) => readActiveSealedKeys(db, after, limit),
    readDueApplicationScopes: (q) => readDueApplicationScopes(db, q),
    scopeKeys: (scopeId) => scopeKeys(db, scopeId),
    withLockedScope: (scopeId, work) => withLockedScope(db, scopeId, work),
  };
}
