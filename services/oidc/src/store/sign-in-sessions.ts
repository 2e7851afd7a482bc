// The OIDC host's own sign-in session: who signed in on this browser, when and how, kept server-side in Redis
// (libs/platform browser sessions, under `<OIDC_REDIS_PREFIX>:sign-in`) under a cookie of its own, so the person
// stays signed in across clients until end-session. The cookie carries only the host-issued identifier; a new
// sign-in always starts a new identifier. A sign-in records the account's authority when the person authenticated
// (libs/issuance held-authority.ts); every read compares it with the account's, and one that moved (a passkey
// removed, an identifier reset, a status change) ends the sign-in there and then, on whichever replica reads it.
import { randomUUID } from 'node:crypto';
import { type AccountsPort, authorityHolds } from '@svc/issuance';
import { type Clock, createBrowserSessionStore } from '@svc/platform';
import type { Redis } from 'ioredis';
import type { SignInSession, SignInSessionStore } from '../domain/ports';

/**
 * `redisPrefix`: the host's key prefix (OIDC_REDIS_PREFIX); `clock`: the host's clock (when a sign-in was last
 * seen); `accounts`: where the accounts' current authority is read (the issuance core's port).
 */
export function createSignInSessionStore(
  redis: Redis,
  accounts: Pick<AccountsPort, 'currentAuthority'>,
  opts: { redisPrefix: string; ttlSeconds: number; clock: Clock },
): SignInSessionStore {
  const store = createBrowserSessionStore(redis, {
    namespace: `${opts.redisPrefix}:sign-in`,
    ttlSeconds: opts.ttlSeconds,
    clock: opts.clock,
  });
  return {
    ttlSeconds: opts.ttlSeconds,
    /**
     * The sign-in behind a cookie value, or undefined (no cookie, not issued here, expired, ended, or its account's
     * authority moved since: then it is ended now).
     */
    async read(id: string | undefined): Promise<SignInSession | undefined> {
      if (!id) return undefined;
      const raw = await store.read(id, 'sign-in');
      if (!raw) return undefined;
      const session = JSON.parse(raw) as SignInSession;
      if (authorityHolds(session.authority, await accounts.currentAuthority(session.accountId)))
        return session;
      await store.end(id);
      return undefined;
    },
    /** Renews the idle lifetime of a sign-in still in use; false when it is gone. */
    touch(id: string): Promise<boolean> {
      return store.write(id, { seen: String(opts.clock()) });
    },
    /**
     * Records a new sign-in under a fresh identifier, ending the one the browser held (a new sign-in is a change
     * of privilege: a copied or planted old cookie must not carry it).
     */
    async start(previousId: string | undefined, s: Omit<SignInSession, 'handle'>) {
      if (previousId) await store.end(previousId);
      const id = await store.issue();
      const session: SignInSession = { ...s, handle: randomUUID() };
      if (!(await store.write(id, { 'sign-in': JSON.stringify(session) })))
        throw new Error('sign-in session lost');
      return { id, session };
    },
    /** Ends the sign-in (end-session): the identifier stops working at once. */
    end(id: string): Promise<void> {
      return store.end(id);
    },
  };
}
