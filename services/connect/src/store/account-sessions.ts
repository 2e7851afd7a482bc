// Sign-ins to the account page, in Redis and shared by every replica: a libs/platform browser session per id
// (found by the SHA-256 of the HttpOnly cookie), holding the CSRF token, who signed in and when, a one-time
// notice and the WebAuthn challenge, under `<CONNECT_REDIS_PREFIX>:account`. Ids are only ever issued here, so a
// cookie the host did not issue finds nothing; signing in moves the session to a fresh id.

import { type Clock, createBrowserSessionStore } from '@svc/platform';
import { newKey, putChallengeIn, takeChallengeFrom } from '@svc/signin';
import type { Redis } from 'ioredis';
import type { AccountSession, AccountSessionStore } from '../domain/ports';

/** `redisPrefix`: connect's key prefix (CONNECT_REDIS_PREFIX); the sessions live under `<redisPrefix>:account`. */
export function createAccountSessionStore(
  redis: Redis,
  opts: { redisPrefix: string; ttlSeconds: number; clock: Clock },
): AccountSessionStore {
  const { ttlSeconds, clock } = opts;
  const sessions = createBrowserSessionStore(redis, {
    namespace: `${opts.redisPrefix}:account`,
    ttlSeconds,
    clock,
  });
  return {
    /** Starts a session under a fresh host-issued id (256 bits) and returns the id. */
    async create(init: Omit<AccountSession, 'csrf'> = {}): Promise<{ id: string; session: AccountSession }> {
      const id = await sessions.issue();
      const session: AccountSession = { ...init, csrf: newKey('') };
      await sessions.write(id, { state: JSON.stringify(session) });
      return { id, session };
    },
    /**
     * Privilege changes (sign-in): moves the session to a fresh id, then gives it new state, a new CSRF token and
     * no challenge. Undefined when the old id is gone (already rotated by a concurrent request, or expired).
     */
    async rotate(
      id: string,
      init: Omit<AccountSession, 'csrf'>,
    ): Promise<{ id: string; session: AccountSession } | undefined> {
      const next = await sessions.rotate(id);
      if (!next) return undefined;
      const session: AccountSession = { ...init, csrf: newKey('') };
      await sessions.remove(next, 'challenge');
      return (await sessions.write(next, { state: JSON.stringify(session) }))
        ? { id: next, session }
        : undefined;
    },
    async load(id: string): Promise<AccountSession | undefined> {
      const raw = await sessions.read(id, 'state');
      return raw ? (JSON.parse(raw) as AccountSession) : undefined;
    },
    /** Saves only a session that still exists, so a request racing sign-out cannot bring it back. */
    async save(id: string, session: AccountSession): Promise<void> {
      await sessions.write(id, { state: JSON.stringify(session) });
    },
    destroy: (id: string) => sessions.end(id),
    putChallenge: (id, challenge) => putChallengeIn(sessions, id, 'challenge', challenge, clock),
    takeChallenge: (id: string) => takeChallengeFrom(sessions, id, 'challenge', clock),
  };
}
