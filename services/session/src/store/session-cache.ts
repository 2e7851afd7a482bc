// Short-lived in-process cache of session records for the hot read paths (introspect, userinfo), dropped at once
// on every replica when a session changes (Redis pub/sub `sessions:changed`), and after SESSION_CACHE_MS anyway.
import type { Db } from '@svc/db';
import { SESSION_CHANGE_CHANNEL } from '@svc/issuance/shared-sql';
import { type Clock, createTtlCache, type Redis } from '@svc/platform';
import type { CachedSession, SessionCachePort } from '../domain/ports';

/** The session cache port, and its subscriber connection's end. */
export interface SessionCache extends SessionCachePort {
  close(): Promise<void>;
}

const MAX_ENTRIES = 50_000;

export function createSessionCache(
  db: Db,
  subscriber: Redis | undefined,
  /** How long a row is reused by the host's clock; a change message evicts it at once (SESSION_CACHE_MS). */
  ttlMs: number,
  clock: Clock,
): SessionCache {
  const cache = createTtlCache<string, CachedSession | null>({ ttlMs, clock, max: MAX_ENTRIES });
  if (subscriber) {
    void subscriber.subscribe(SESSION_CHANGE_CHANNEL).catch(() => undefined);
    subscriber.on('message', (channel: string, message: string) => {
      if (channel !== SESSION_CHANGE_CHANNEL) return;
      for (const sid of message.split(',')) cache.delete(sid);
    });
  }
  const load = (sid: string) =>
    db.session.findUnique({
      where: { id: sid },
      select: {
        id: true,
        applicationId: true,
        protocol: true,
        accountId: true,
        workloadId: true,
        workloadGeneration: true,
        sourceCredentialId: true,
        subject: true,
        actorSubject: true,
        status: true,
        expiresAt: true,
        authorityVersion: true,
      },
    });
  return {
    get(sid) {
      return cache.get(sid, load);
    },
    evict(sid) {
      cache.delete(sid);
    },
    async close() {
      cache.clear();
      if (subscriber) await subscriber.quit().catch(() => undefined);
    },
  };
}
