// Short-lived in-process cache of session records for the hot read paths (introspect, userinfo), dropped at once
// on every replica when a session changes (Redis pub/sub `sessions:changed`), and after SESSION_CACHE_MS anyway.
import { type Db, runPrepared, type Statement } from '@svc/db';
import { SESSION_CHANGE_CHANNEL } from '@svc/issuance/shared-sql';
import { type Clock, closeRedis, createTtlCache, type Redis } from '@svc/platform';
import type { CachedSession, SessionCachePort } from '../domain/ports';

/** The session cache port, and its subscriber connection's end. */
export interface SessionCache extends SessionCachePort {
  close(): Promise<void>;
}

const MAX_ENTRIES = 50_000;

/** The statement's row: the session's columns under the record's names, its account's flattened (null: none). */
type SessionRow = Omit<CachedSession, 'account'> & {
  accountStatus: NonNullable<CachedSession['account']>['status'] | null;
  accountAuthorityVersion: number | null;
};

/**
 * The session and its account's status and authority version in the one round trip a cache miss makes (a primary
 * key probe of each table), so introspection can tell a session whose account's authority moved on (a passkey
 * removed, a status change, an SSO link) without a second read, even before that change's revocation reaches the
 * session row (issue 25).
 */
const READ_SESSION: Statement = {
  name: 'session_cache_read_v1',
  text: `SELECT s.id, s.application_id AS "applicationId", s.protocol, s.account_id AS "accountId",
      s.workload_id AS "workloadId", s.workload_generation AS "workloadGeneration",
      s.source_credential_id AS "sourceCredentialId", s.subject, s.actor_subject AS "actorSubject", s.status,
      s.expires_at AS "expiresAt", s.authority_version AS "authorityVersion",
      a.status AS "accountStatus", a.authority_version AS "accountAuthorityVersion"
    FROM sessions s LEFT JOIN accounts a ON a.id = s.account_id
    WHERE s.id = $1::text`,
};

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
  const load = async (sid: string): Promise<CachedSession | null> => {
    const [row] = await runPrepared<SessionRow>(db, READ_SESSION, [sid]);
    if (!row) return null;
    const { accountStatus, accountAuthorityVersion, ...session } = row;
    const account =
      accountStatus === null ? null : { status: accountStatus, authorityVersion: accountAuthorityVersion! };
    return { ...session, account };
  };
  return {
    get(sid) {
      return cache.get(sid, load);
    },
    evict(sid) {
      cache.delete(sid);
    },
    async close() {
      cache.clear();
      if (subscriber) await closeRedis(subscriber);
    },
  };
}
