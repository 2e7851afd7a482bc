// The current terms, cached in process: every issuance and refresh reads them before its one read.
import type { Db } from '@svc/db';
import { type Clock, createTtlCache } from '@svc/platform';
import { currentTerms } from './store/agreements';
import type { CurrentTerms } from './terms';

export interface TermsCache {
  /** The current terms (undefined before any are published), at most `ttlMs` old by the host's clock. */
  current(): Promise<CurrentTerms | undefined>;
}

/**
 * The current terms, cached in process for `ttlMs` (the host's TERMS_CACHE_MS, default 1000 ms; 0 in tests): a
 * new revision is enforced everywhere within that window.
 */
export function createTermsCache(db: Db, ttlMs: number, clock: Clock): TermsCache {
  const cache = createTtlCache<Db, CurrentTerms | undefined>({ ttlMs, clock, max: 1 });
  return { current: () => cache.get(db, currentTerms) };
}
