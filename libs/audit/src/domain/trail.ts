// Reading the trail (list, export), walking its chain (verify) and cutting its old end (retention): the one logic
// behind `pnpm admin audit ...`, the worker's sweep and the management host's GET /v1/audit-events.
import type { Clock } from '@svc/platform';
import { type ChainVerdict, ChainWalk, RETENTION_ACTION } from './chain';
import { AuditQueryError } from './errors';
import type { AuditFilter, AuditTrailStore } from './ports';
import type { AuditContext, AuditEvent } from './types';

export const AUDIT_PAGE_MAX = 200;
export const AUDIT_PAGE_DEFAULT = 50;
const WALK_PAGE = 1000;

/** The filters as given on a command line or a query string, before they are checked. */
export interface AuditQueryInput {
  since?: string;
  until?: string;
  action?: string;
  actor?: string;
  target?: string;
  limit?: string | number;
  cursor?: string;
}

function timeOf(value: string | undefined, field: string): Date | undefined {
  if (value === undefined || value === '') return undefined;
  // An ISO 8601 instant with its offset (2026-11-29T05:00:00Z) or a plain date (2026-11-29, midnight UTC).
  if (!/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2}))?$/.test(value))
    throw new AuditQueryError(`${field} must be an ISO 8601 time such as 2026-11-29T05:00:00Z`, field);
  const at = new Date(value);
  if (Number.isNaN(at.getTime())) throw new AuditQueryError(`${field} is not a valid time`, field);
  return at;
}

function pairOf(value: string | undefined, field: string): { kind?: string; id: string } | undefined {
  if (value === undefined || value === '') return undefined;
  if (value.length > 200 || [...value].some((c) => c.charCodeAt(0) < 0x20))
    throw new AuditQueryError(`${field} is too long or holds control characters`, field);
  const colon = value.indexOf(':');
  // `kind:id` when the part before the first colon is a plain word (ids such as sid_... or uuids have none).
  if (colon > 0 && /^[a-z_]+$/.test(value.slice(0, colon)))
    return { kind: value.slice(0, colon), id: value.slice(colon + 1) };
  return { id: value };
}

/** Checks the filters into a query; throws AuditQueryError naming the bad one. */
export function auditQueryOf(input: AuditQueryInput): AuditFilter & { limit: number; beforeSeq?: bigint } {
  const since = timeOf(input.since, 'since');
  const until = timeOf(input.until, 'until');
  if (since && until && since > until) throw new AuditQueryError('since must not be after until', 'since');
  if (input.action !== undefined && !/^[a-z_]+(\.[a-z_]+)*(\.\*)?$/.test(input.action))
    throw new AuditQueryError('action must look like app.create or app.*', 'action');
  const limit = input.limit === undefined || input.limit === '' ? AUDIT_PAGE_DEFAULT : Number(input.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > AUDIT_PAGE_MAX)
    throw new AuditQueryError(`limit must be an integer from 1 to ${AUDIT_PAGE_MAX}`, 'limit');
  let beforeSeq: bigint | undefined;
  if (input.cursor !== undefined && input.cursor !== '') {
    if (!/^[1-9]\d{0,18}$/.test(input.cursor))
      throw new AuditQueryError('cursor must be the next value a previous page gave', 'cursor');
    beforeSeq = BigInt(input.cursor);
  }
  const actor = pairOf(input.actor, 'actor');
  const target = pairOf(input.target, 'target');
  const subject = { since, until, action: input.action, actor, target };
  return { ...subject, limit, beforeSeq };
}

/**
 * One page of the trail, newest first: `{ auditEvents, next }`, where `next` (the cursor of the following page)
 * is present only when more rows may remain.
 */
export async function listAuditEvents(ports: { auditTrail: AuditTrailStore }, input: AuditQueryInput) {
  const query = auditQueryOf(input);
  const rows = await ports.auditTrail.descending({ ...query, limit: query.limit + 1 });
  const page = rows.slice(0, query.limit);
  const more = rows.length > query.limit;
  return more ? { auditEvents: page, next: page[page.length - 1]!.seq } : { auditEvents: page };
}

/** Every row stamped at or after `since`, oldest first, page by page (JSON lines for a SIEM). */
export async function* exportAuditEvents(
  ports: { auditTrail: AuditTrailStore },
  input: { since?: string },
): AsyncGenerator<AuditEvent> {
  const since = timeOf(input.since, 'since');
  const head = await ports.auditTrail.head();
  let after = 0n;
  for (;;) {
    const rows = await ports.auditTrail.ascending({
      afterSeq: after,
      uptoSeq: head.seq,
      since,
      limit: WALK_PAGE,
    });
    for (const row of rows) yield row;
    if (rows.length < WALK_PAGE) return;
    after = BigInt(rows[rows.length - 1]!.seq);
  }
}

/** Walks the whole remaining trail up to the head read first (rows appended meanwhile are left for the next run). */
export async function verifyAuditTrail(ports: { auditTrail: AuditTrailStore }): Promise<ChainVerdict> {
  const head = await ports.auditTrail.head();
  const walk = new ChainWalk();
  let after = 0n;
  for (;;) {
    const rows = await ports.auditTrail.ascending({ afterSeq: after, uptoSeq: head.seq, limit: WALK_PAGE });
    for (const row of rows) if (!walk.add(row)) return walk.finish(head);
    if (rows.length < WALK_PAGE) return walk.finish(head);
    after = BigInt(rows[rows.length - 1]!.seq);
  }
}

export const DEFAULT_AUDIT_RETENTION_DAYS = 365;
const DAY_MS = 86_400_000;

/**
 * Deletes the rows older than `days` from the old end of the chain only (every row below the oldest one stamped
 * within the window), and records the cut as a row of its own (`audit.retention`) whose changes anchor the first
 * kept row: `firstSeq` and `anchor` (that row's prev_hash), so `verify` still holds. Nothing to cut: no row.
 */
export async function sweepAuditRetention(
  ports: { auditTrail: AuditTrailStore },
  opts: {
    days: number;
    clock: Clock;
    context: AuditContext;
    /** At most this many rows in one cut (the worker's batch); the next cut continues. */
    limit?: number;
  },
): Promise<{ deleted: number }> {
  const now = opts.clock();
  const before = new Date(now - opts.days * DAY_MS);
  return ports.auditTrail.locked(opts.context, new Date(now), async (chain) => {
    const oldest = await chain.oldest();
    if (!oldest || new Date(oldest.at) >= before) return { deleted: 0 };
    const kept = await chain.firstAtOrAfter(before);
    // Nothing stamped within the window: every row goes, and the retention row itself is the first kept one.
    let firstSeq = kept ? BigInt(kept.seq) : chain.head.seq + 1n;
    if (opts.limit !== undefined && firstSeq > BigInt(oldest.seq) + BigInt(opts.limit))
      firstSeq = BigInt(oldest.seq) + BigInt(opts.limit);
    const first = firstSeq <= chain.head.seq ? await chain.rowAt(firstSeq) : undefined;
    const anchor = first ? first.prevHash : chain.head.hash;
    const deleted = await chain.deleteBelow(firstSeq);
    if (deleted === 0) return { deleted: 0 };
    chain.record({
      action: RETENTION_ACTION,
      target: { type: 'audit_trail', id: 'audit_events' },
      changes: {
        firstSeq: { from: oldest.seq, to: firstSeq.toString() },
        anchor: { from: oldest.prevHash, to: anchor },
        deleted: { from: null, to: deleted },
        olderThan: { from: null, to: before.toISOString() },
      },
    });
    return { deleted };
  });
}
