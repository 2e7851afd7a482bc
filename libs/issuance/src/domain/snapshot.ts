// The terms caches, in process: the current terms (every issuance and refresh reads them before its one read) and
// published revisions by number (the terms pages).
import { type Clock, createTtlCache } from '@svc/platform';
import type { AgreementsPort } from './ports';
import type { Agreement, CurrentTerms } from './terms';

export interface TermsCache {
  /** The current terms (undefined before any are published), at most `ttlMs` old by the host's clock. */
  current(): Promise<CurrentTerms | undefined>;
}

const readCurrent = (agreements: AgreementsPort) => agreements.currentTerms();

/**
 * The current terms, cached in process for `ttlMs` (the host's TERMS_CACHE_MS, default 1000 ms; 0 in tests): a
 * new revision is enforced everywhere within that window.
 */
export function createTermsCache(agreements: AgreementsPort, ttlMs: number, clock: Clock): TermsCache {
  const cache = createTtlCache<AgreementsPort, CurrentTerms | undefined>({ ttlMs, clock, max: 1 });
  return { current: () => cache.get(agreements, readCurrent) };
}

/**
 * `termsRevision` (the agreements port) through a small in-process map: a published revision is immutable
 * (document type + revision -> body), so a page view of one already read needs no query. Only revisions found are
 * kept (an unknown number is read again each time, so a later publish is served and unknown numbers cannot fill
 * the map), at most `size`, the least recently read dropped first. By explicit revision only: the current revision
 * is never read through it.
 */
export function createTermsRevisionCache(
  agreements: Pick<AgreementsPort, 'termsRevision'>,
  size = 16,
): (revision: number) => Promise<Agreement | undefined> {
  const byRevision = new Map<number, Agreement>();
  return async (revision) => {
    const hit = byRevision.get(revision);
    if (hit) {
      byRevision.delete(revision);
      byRevision.set(revision, hit);
      return hit;
    }
    const agreement = await agreements.termsRevision(revision);
    if (agreement) {
      byRevision.set(revision, agreement);
      if (byRevision.size > size) byRevision.delete(byRevision.keys().next().value as number);
    }
    return agreement;
  };
}
