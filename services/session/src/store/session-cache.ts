// Short-lived in-process cache of session records for the hot read paths (introspect, userinfo), dropped at once
// on every replica when a session changes (Redis pub/sub `sessions:changed`), and after SESSION_CACHE_MS anyway.
import type { Db } from '@svc/db';
import { type NewSession, SESSION_CHANGE_CHANNEL, type SessionStatus } from '@svc/issuance';
import type { Redis } from '@svc/platform';

/** The session fields the hot read paths need. */
export type CachedSession = Pick<
  NewSession,
  | 'id'
  | 'applicationId'
  | 'protocol'
  | 'accountId'
  | 'workloadId'
  | 'workloadGeneration'
  | 'sourceCredentialId'
  | 'subject'
  | 'actorSubject'
  | 'expiresAt'
> & { status: SessionStatus };

export interface SessionCache {
  get(sid: string): Promise<CachedSession | null>;
  evict(sid: string): void;
  close(): Promise<void>;
}

const MAX_ENTRIES = 50_000;

export function createSessionCache(
  db: Db,
  subscriber: Redis | undefined,
  /** How long a row is reused; a change message evicts it at once (SESSION_CACHE_MS). */
  ttlMs: number,
): SessionCache {
  const cache = new Map<string, { at: number; value: Promise<CachedSession | null> }>();
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
      },
    });
  return {
    get(sid) {
      if (ttlMs <= 0) return load(sid);
      const hit = cache.get(sid);
      if (hit && Date.now() - hit.at < ttlMs) return hit.value;
      const value = load(sid);
      cache.set(sid, { at: Date.now(), value });
      value.catch(() => cache.delete(sid));
      if (cache.size > MAX_ENTRIES) cache.delete(cache.keys().next().value as string);
      return value;
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
