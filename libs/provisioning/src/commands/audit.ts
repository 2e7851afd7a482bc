// The audit trail's commands (`audit list`, `audit verify`, `audit export`): reads over the trail through
// @svc/audit's domain, the same logic the management host serves at GET /v1/audit-events.
import { type AuditEvent, exportAuditEvents, listAuditEvents, verifyAuditTrail } from '@svc/audit';
import { ProvisioningError } from '../errors';
import type { Flags } from './flags';
import { defineCommand } from './registry';

const FILTERS = { since: {}, until: {}, action: {}, actor: {}, target: {} };

/** The filters as given (each checked by the domain: a bad one is AuditQueryError naming it, exit 2). */
function filtersOf(f: Flags) {
  return {
    since: f.optional('since'),
    until: f.optional('until'),
    action: f.optional('action'),
    actor: f.optional('actor'),
    target: f.optional('target'),
  };
}

export const auditCommands = [
  defineCommand({
    name: 'audit list',
    synopsis:
      '[--since T] [--until T] [--action A|A.*] [--actor ID|KIND:ID] [--target ID|TYPE:ID] [--limit N] [--cursor C]   (newest first, 50 by default, at most 200; next gives the following page)',
    flags: { ...FILTERS, limit: {}, cursor: {} },
    // Pages itself (limit, cursor, next: the trail's own cursor, a seq), so no generic `page` here.
    http: { method: 'GET', path: '/v1/audit-events' },
    parse: (f) => ({ ...filtersOf(f), limit: f.optional('limit'), cursor: f.optional('cursor') }),
    run: (ctx, i) => listAuditEvents(ctx.audit(), i),
  }),
  defineCommand({
    name: 'audit verify',
    synopsis:
      '  (walks the whole chain: {"verified":N}, or exit 1 naming the first row whose hash or link does not hold)',
    flags: {},
    http: { method: 'GET', path: '/v1/audit-events/verify' },
    parse: () => ({}),
    run: async (ctx) => {
      const verdict = await verifyAuditTrail(ctx.audit());
      if (verdict.ok) return { verified: verdict.verified };
      const { seq, id, problem } = verdict.broken;
      throw new ProvisioningError(
        `the audit trail does not verify at seq ${seq}${id ? ` (id ${id})` : ''}: ${problem}; ${verdict.verified} rows before it verified`,
      );
    },
  }),
  defineCommand({
    name: 'audit export',
    synopsis: '[--since T]   (every row since T, oldest first, one JSON object per line, for a SIEM)',
    flags: { since: {} },
    http: { method: 'GET', path: '/v1/audit-events/export' },
    jsonLines: true,
    parse: (f) => ({ since: f.optional('since') }),
    run: async (ctx, i) => {
      const lines: AuditEvent[] = [];
      for await (const event of exportAuditEvents(ctx.audit(), i)) lines.push(event);
      return { lines };
    },
  }),
];
