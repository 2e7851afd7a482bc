// Store of the trail's reads and of its locked old-end cut: rows mapped to AuditEvent once, here.
import type { Db } from '@svc/db';
import { sealEvents } from '../domain/chain';
import type { AuditFilter, AuditTrailStore, LockedChain } from '../domain/ports';
import type { AuditChanges, AuditEntry, AuditEvent } from '../domain/types';
import { AUDITED_TX, insertSealed } from './append';
import {
  type ChainWaitBounds,
  DEFAULT_CHAIN_WAIT,
  lockChainHeadWithin,
  statementTimeoutOf,
} from './chain-wait';

interface Row {
  seq: bigint;
  id: string;
  at: Date;
  actorKind: string;
  actorId: string;
  actorName: string | null;
  action: string;
  targetType: string;
  targetId: string;
  changes: unknown;
  requestId: string | null;
  sourceAddress: string | null;
  userAgent: string | null;
  prevHash: string;
  hash: string;
}

export function eventOf(r: Row): AuditEvent {
  return {
    seq: r.seq.toString(),
    id: r.id,
    at: r.at.toISOString(),
    actor: { kind: r.actorKind as AuditEvent['actor']['kind'], id: r.actorId, name: r.actorName },
    action: r.action,
    target: { type: r.targetType, id: r.targetId },
    changes: (r.changes ?? {}) as AuditChanges,
    requestId: r.requestId,
    sourceAddress: r.sourceAddress,
    userAgent: r.userAgent,
    prevHash: r.prevHash,
    hash: r.hash,
  };
}

function whereOf(f: AuditFilter & { beforeSeq?: bigint }) {
  return {
    ...(f.beforeSeq !== undefined ? { seq: { lt: f.beforeSeq } } : {}),
    ...(f.since || f.until
      ? { at: { ...(f.since ? { gte: f.since } : {}), ...(f.until ? { lte: f.until } : {}) } }
      : {}),
    ...(f.action
      ? f.action.endsWith('.*')
        ? { action: { startsWith: f.action.slice(0, -1) } }
        : { action: f.action }
      : {}),
    ...(f.actor ? { actorId: f.actor.id, ...(f.actor.kind ? { actorKind: f.actor.kind } : {}) } : {}),
    ...(f.target ? { targetId: f.target.id, ...(f.target.type ? { targetType: f.target.type } : {}) } : {}),
  };
}

export function createAuditTrailStore(
  db: Db,
  chainWait: ChainWaitBounds = DEFAULT_CHAIN_WAIT,
): AuditTrailStore {
  return {
    async head() {
      const head = await db.auditChainHead.findUnique({ where: { id: 1 } });
      if (!head) throw new Error('the audit chain head row is missing (run pnpm db:migrate)');
      return { seq: head.seq, hash: head.hash };
    },
    async ascending(q) {
      const rows = await db.auditEvent.findMany({
        where: {
          seq: { gt: q.afterSeq, ...(q.uptoSeq !== undefined ? { lte: q.uptoSeq } : {}) },
          ...(q.since ? { at: { gte: q.since } } : {}),
        },
        orderBy: { seq: 'asc' },
        take: q.limit,
      });
      return rows.map(eventOf);
    },
    async descending(q) {
      const rows = await db.auditEvent.findMany({
        where: whereOf(q),
        orderBy: { seq: 'desc' },
        take: q.limit,
      });
      return rows.map(eventOf);
    },
    locked(context, at, work) {
      // The cut waits for the chain head as a change does (chain-wait.ts), within AUDIT_CHAIN_WAIT_MS.
      const deadline = Date.now() + chainWait.waitMs;
      return db.$transaction(async (tx) => {
        const head = await lockChainHeadWithin(tx, statementTimeoutOf(db), deadline, chainWait.waitMs);
        const entries: AuditEntry[] = [];
        const chain: LockedChain = {
          head,
          oldest: async () => {
            const r = await tx.auditEvent.findFirst({ orderBy: { seq: 'asc' } });
            return r ? eventOf(r) : undefined;
          },
          rowAt: async (seq) => {
            const r = await tx.auditEvent.findUnique({ where: { seq } });
            return r ? eventOf(r) : undefined;
          },
          firstAtOrAfter: async (when) => {
            const r = await tx.auditEvent.findFirst({
              where: { at: { gte: when } },
              orderBy: { seq: 'asc' },
            });
            return r ? eventOf(r) : undefined;
          },
          deleteBelow: async (seq) => (await tx.auditEvent.deleteMany({ where: { seq: { lt: seq } } })).count,
          record: (e) => entries.push(e),
        };
        const result = await work(chain);
        await insertSealed(tx, sealEvents(head, context, entries, at));
        return result;
      }, AUDITED_TX);
    },
  };
}
