// The current terms, cached in process: every issuance and refresh reads them before its one read.
import type { Db } from '@svc/db';
import { currentTerms } from './store/agreements';
import type { CurrentTerms } from './terms';

const termsCaches = new WeakMap<Db, { at: number; value: Promise<CurrentTerms | undefined> }>();

/**
 * The current terms, cached in process for `ttlMs` (the host's TERMS_CACHE_MS, default 1000 ms; 0 in tests): a
 * new revision is enforced everywhere within that window.
 */
export function currentTermsCached(db: Db, ttlMs: number): Promise<CurrentTerms | undefined> {
  const ttl = ttlMs;
  const hit = termsCaches.get(db);
  if (ttl > 0 && hit && Date.now() - hit.at < ttl) return hit.value;
  const value = currentTerms(db);
  termsCaches.set(db, { at: Date.now(), value });
  value.catch(() => termsCaches.delete(db));
  return value;
}
