// The one in-process read-through cache of the hot paths (applications, terms, OIDC clients, session records):
// a loaded value is reused for `ttlMs` by the host's Clock, so tests see expiry by moving the clock.
import type { Clock } from './clock';

export interface TtlCache<K, V> {
  /** The value loaded for `key` less than `ttlMs` ago by the clock, else `load(key)` (remembered unless it fails). */
  get(key: K, load: (key: K) => Promise<V>): Promise<V>;
  delete(key: K): void;
  clear(): void;
}

/**
 * A cache of loads (promises, so concurrent misses share one load) that keeps at most `max` keys, dropping the
 * oldest first. A failed load is forgotten at once, so the next call tries again. `ttlMs` <= 0 turns it off: every
 * call loads and nothing is kept.
 */
export function createTtlCache<K, V>(opts: { ttlMs: number; clock: Clock; max: number }): TtlCache<K, V> {
  const { ttlMs, clock, max } = opts;
  const entries = new Map<K, { at: number; value: Promise<V> }>();
  return {
    get(key, load) {
      if (ttlMs <= 0) return load(key);
      const now = clock();
      const hit = entries.get(key);
      if (hit && now - hit.at < ttlMs) return hit.value;
      const value = load(key);
      // Re-inserted, not updated in place, so the map's order stays the order of loads (the oldest goes first).
      entries.delete(key);
      entries.set(key, { at: now, value });
      value.catch(() => {
        if (entries.get(key)?.value === value) entries.delete(key);
      });
      if (entries.size > max) entries.delete(entries.keys().next().value as K);
      return value;
    },
    delete(key) {
      entries.delete(key);
    },
    clear() {
      entries.clear();
    },
  };
}
