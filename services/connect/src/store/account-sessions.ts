// Sign-ins to the account page, in Redis and shared by every replica: one record per session id (found by the
// SHA-256 of the HttpOnly cookie), holding the CSRF token, who signed in and when, and a one-time notice. Ids are
// only ever made here, so a cookie the host did not issue finds nothing; signing in replaces the id.

import { newSessionId } from '@svc/platform';
import type { Redis } from 'ioredis';
import { newKey, sha256Hex } from '../domain/keys';
import type { Challenge } from './flows';

export interface AccountSession {
  csrf: string;
  /** The account that signed in with its passkey, and when (ms). */
  accountId?: string;
  authTime?: number;
  /** The passkey (row id) it signed in with: removing that passkey elsewhere ends this session. */
  passkeyId?: string;
  /** A one-time message for the next page view. */
  notice?: { key: string; vars?: Record<string, string | number> };
}

export function createAccountSessionStore(redis: Redis, ttlSeconds: number) {
  const key = (id: string) => `connect:account:${sha256Hex(id)}`;
  return {
    /** Starts a session under a fresh random id (256 bits) and returns the id. */
    async create(init: Omit<AccountSession, 'csrf'> = {}): Promise<{ id: string; session: AccountSession }> {
      const id = newSessionId();
      const session: AccountSession = { ...init, csrf: newKey('') };
      await redis.set(key(id), JSON.stringify(session), 'EX', ttlSeconds);
      return { id, session };
    },
    async load(id: string): Promise<AccountSession | undefined> {
      const raw = await redis.get(key(id));
      return raw ? (JSON.parse(raw) as AccountSession) : undefined;
    },
    /** Saves only a session that still exists (XX), so a request racing sign-out cannot bring it back. */
    async save(id: string, session: AccountSession): Promise<void> {
      await redis.set(key(id), JSON.stringify(session), 'EX', ttlSeconds, 'XX');
    },
    async destroy(id: string): Promise<void> {
      await redis.del(key(id), `${key(id)}:challenge`);
    },
    async putChallenge(id: string, challenge: Challenge): Promise<void> {
      await redis.set(`${key(id)}:challenge`, JSON.stringify(challenge), 'EX', 300);
    },
    /** Reads and removes the challenge atomically (GETDEL): answered once, on any replica. */
    async takeChallenge(id: string): Promise<Challenge | undefined> {
      const raw = await redis.getdel(`${key(id)}:challenge`);
      return raw ? (JSON.parse(raw) as Challenge) : undefined;
    },
  };
}
export type AccountSessionStore = ReturnType<typeof createAccountSessionStore>;
