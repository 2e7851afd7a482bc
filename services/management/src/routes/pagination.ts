// Cursor pagination of the collection reads: `?limit=` (1 to 200, 50 by default) and `?cursor=` (opaque, from the
// previous page's `next`). The answer is the CLI's answer with its list cut to the page, and `next` while more remain.
import { ProblemError } from '@svc/platform';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 200;
export const PAGE_PARAMS: ReadonlySet<string> = new Set(['limit', 'cursor']);

/** What identifies an item in a cursor: its first identifying member. */
const IDENTITY = ['id', 'applicationAnchor', 'clientId', 'kid', 'sid'] as const;

function identityOf(item: unknown): string {
  const o = (item ?? {}) as Record<string, unknown>;
  for (const k of IDENTITY) if (typeof o[k] === 'string') return o[k] as string;
  return '';
}

const invalid = (pointer: string, detail: string) =>
  new ProblemError('invalid-input', { detail, errors: [{ pointer, detail }] });

export interface PageRequest {
  limit: number;
  cursor?: string;
}

export function pageRequestOf(query: Record<string, unknown>): PageRequest {
  const rawLimit = query.limit;
  let limit = DEFAULT_LIMIT;
  if (rawLimit !== undefined) {
    if (typeof rawLimit !== 'string' || !/^\d{1,4}$/.test(rawLimit) || +rawLimit < 1 || +rawLimit > MAX_LIMIT)
      throw invalid('/limit', `limit must be an integer from 1 to ${MAX_LIMIT}`);
    limit = +rawLimit;
  }
  const cursor = query.cursor;
  if (cursor !== undefined && typeof cursor !== 'string')
    throw invalid('/cursor', 'cursor must be given once');
  return { limit, cursor };
}

/**
 * Cuts `answer[member]` to one page. The cursor holds the offset and the identity of the last item served, so a
 * page after an insert or removal continues after that item rather than skipping or repeating one.
 */
export function pageOf(
  answer: Record<string, unknown>,
  member: string,
  page: PageRequest,
): Record<string, unknown> {
  const items = answer[member];
  if (!Array.isArray(items)) return answer;
  let start = 0;
  if (page.cursor !== undefined) {
    let at: { o: number; k: string };
    try {
      at = JSON.parse(Buffer.from(page.cursor, 'base64url').toString('utf8'));
      if (!Number.isSafeInteger(at.o) || at.o < 0 || typeof at.k !== 'string') throw new Error('shape');
    } catch {
      throw invalid('/cursor', 'cursor is not one this API gave; start again without it');
    }
    if (at.o > 0 && identityOf(items[at.o - 1]) === at.k) start = at.o;
    else {
      const i = items.findIndex((x) => identityOf(x) === at.k);
      start = i >= 0 ? i + 1 : Math.min(at.o, items.length);
    }
  }
  const end = start + page.limit;
  const out: Record<string, unknown> = { ...answer, [member]: items.slice(start, end) };
  if (end < items.length) {
    out.next = Buffer.from(JSON.stringify({ o: end, k: identityOf(items[end - 1]) })).toString('base64url');
  }
  return out;
}
