// Authorization requests waiting for the person (sign-in, terms, consent): a validated request parked in Redis
// under a random identifier the pages' URL carries, short-lived and shared by every replica. Finishing one takes
// it atomically, so a request answers its client once even when two tabs or two replicas race to finish it.
import { createHash, randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { AuthorizationRequest, Prompt } from '../domain/authorize-request';

/**
 * What a parked request keeps: the checked request as JSON carries it, the client by id only (it is read again on
 * use) and the prompt as a list.
 */
export type Interaction = Omit<AuthorizationRequest, 'client' | 'prompt'> & {
  clientId: string;
  prompt: Prompt[];
  /** Milliseconds since the epoch. */
  createdAt: number;
  /**
   * Decided on the first page view (where the browser's sign-in cookie is sure to arrive): the person must
   * authenticate in this interaction (no sign-in, prompt=login, max_age passed).
   */
  freshLogin?: boolean;
  /** The browser's sign-in was offered to the page steps once (choosing another account is not undone). */
  heldOffered?: boolean;
  /** prompt=consent: the person has reviewed what the application can see. */
  consentReviewed?: boolean;
};

const UID = /^[A-Za-z0-9_-]{43}$/;

export function toInteraction(request: AuthorizationRequest, createdAt: number): Interaction {
  const { client, prompt, ...checked } = request;
  return { ...checked, clientId: client.clientId, prompt: [...prompt], createdAt };
}

// Progress flags are hash fields of their own beside the request, so concurrent page steps never overwrite each
// other's writes; a flag is written only while the request is still parked.
const FLAG = `if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1`;

type Flags = Pick<Interaction, 'freshLogin' | 'heldOffered' | 'consentReviewed'>;

function decode(fields: Record<string, string>): Interaction | undefined {
  if (!fields.request) return undefined;
  const out = JSON.parse(fields.request) as Interaction;
  for (const name of ['freshLogin', 'heldOffered', 'consentReviewed'] as const) {
    if (fields[name] !== undefined) out[name] = fields[name] === '1';
  }
  return out;
}

export function createInteractionStore(redis: Redis, opts: { ttlSeconds: number }) {
  const key = (uid: string) => `oidc:interaction:${createHash('sha256').update(uid).digest('hex')}`;
  return {
    /** Parks a request; returns the identifier for the page URL (256 random bits). */
    async park(interaction: Interaction): Promise<string> {
      const uid = randomBytes(32).toString('base64url');
      await redis
        .multi()
        .hset(key(uid), 'request', JSON.stringify(interaction))
        .expire(key(uid), opts.ttlSeconds)
        .exec();
      return uid;
    },
    async get(uid: string): Promise<Interaction | undefined> {
      if (!UID.test(uid)) return undefined;
      return decode(await redis.hgetall(key(uid)));
    },
    /** Records page progress on a request still parked (its lifetime unchanged); false when it is gone. */
    async flag(uid: string, flags: Flags): Promise<boolean> {
      if (!UID.test(uid)) return false;
      const args = Object.entries(flags).flatMap(([k, v]) => (v === undefined ? [] : [k, v ? '1' : '0']));
      if (!args.length) return true;
      return (await redis.eval(FLAG, 1, key(uid), ...args)) === 1;
    },
    /** Removes and returns the request: exactly one caller finishes it (MULTI runs read and delete as one). */
    async take(uid: string): Promise<Interaction | undefined> {
      if (!UID.test(uid)) return undefined;
      const replies = await redis.multi().hgetall(key(uid)).del(key(uid)).exec();
      const fields = replies?.[0]?.[1] as Record<string, string> | undefined;
      return fields ? decode(fields) : undefined;
    },
  };
}
export type InteractionStore = ReturnType<typeof createInteractionStore>;
