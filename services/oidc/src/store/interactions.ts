// Authorization requests waiting for the person (sign-in, terms, consent): a validated request parked in Redis
// under a random identifier the pages' URL carries, short-lived and shared by every replica. Finishing one takes
// it atomically, so a request answers its client once even when two tabs or two replicas race to finish it.
// Beside it lives its return record (where the client's error goes, nothing else) for a day past the request's
// expiry, so the person can still be sent back to an application whose request lapsed (domain/interaction.ts).
import { createHash, randomBytes } from 'node:crypto';
import { type Clock, slotTag } from '@svc/platform';
import type { Redis } from 'ioredis';
import type { ExpiredReturn, Interaction, InteractionFlags, InteractionStore } from '../domain/ports';

/** How long past a request's expiry its client can still be answered (about a day, as the pages promise). */
export const EXPIRED_RETURN_SECONDS = 24 * 3600;

const UID = /^[A-Za-z0-9_-]{43}$/;

// A request is parked while its hash exists (Redis drops it OIDC_INTERACTION_TTL_SECONDS after parking) and the
// host's clock stands before its `expiresAt` field (ms): the clock decides, Redis's own expiry frees the memory.
// (A request parked before the field existed has only Redis's expiry.)
const LIVE = `if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local at = redis.call('HGET', KEYS[1], 'expiresAt')
if at and tonumber(at) <= tonumber(ARGV[1]) then return 0 end`;

// Progress flags are hash fields of their own beside the request, so concurrent page steps never overwrite each
// other's writes; a flag is written only while the request is still parked.
const FLAG = `${LIVE}
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
return 1`;

// Finishing reads and deletes the request and its return record as one step: a finished request has no client
// left to answer after it expires. An expired request is not taken (its return record stays).
const TAKE = `${LIVE}
local fields = redis.call('HGETALL', KEYS[1])
redis.call('DEL', KEYS[1], KEYS[2])
return fields`;

function decode(fields: Record<string, string>): Interaction | undefined {
  if (!fields.request) return undefined;
  const out = JSON.parse(fields.request) as Interaction;
  for (const name of ['freshLogin', 'heldOffered', 'consentReviewed'] as const) {
    if (fields[name] !== undefined) out[name] = fields[name] === '1';
  }
  return out;
}

function pairs(flat: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) out[flat[i] as string] = flat[i + 1] as string;
  return out;
}

/**
 * `redisPrefix`: the host's key prefix (OIDC_REDIS_PREFIX): requests live under `<redisPrefix>:interaction:`, return
 * records under `<redisPrefix>:interaction-return:`; `ttlSeconds`: how long a request waits for the person
 * (OIDC_INTERACTION_TTL_SECONDS); `clock`: the host's clock, which decides expiry.
 */
export function createInteractionStore(
  redis: Redis,
  opts: { redisPrefix: string; ttlSeconds: number; clock: Clock },
): InteractionStore {
  const digest = (uid: string) => createHash('sha256').update(uid).digest('hex');
  // A request and its return record are taken together (one script, one transaction): on a Cluster the digest is
  // a hash tag, so both keys share a slot.
  const key = (uid: string) => `${opts.redisPrefix}:interaction:${slotTag(redis, digest(uid))}`;
  const returnKey = (uid: string) => `${opts.redisPrefix}:interaction-return:${slotTag(redis, digest(uid))}`;
  const live = (fields: Record<string, string>) =>
    fields.expiresAt === undefined || Number(fields.expiresAt) > opts.clock();
  return {
    /**
     * Parks a request and its return record; returns the identifier for the page URL (256 random bits). Redis
     * drops the request at its expiry and the return record EXPIRED_RETURN_SECONDS later.
     */
    async park(interaction: Interaction): Promise<string> {
      const uid = randomBytes(32).toString('base64url');
      const expiredAt = interaction.createdAt + opts.ttlSeconds * 1000;
      const back: ExpiredReturn = {
        clientId: interaction.clientId,
        redirectUri: interaction.redirectUri,
        responseMode: interaction.responseMode,
        ...(interaction.state !== undefined ? { state: interaction.state } : {}),
        expiredAt,
      };
      await redis
        .multi()
        .hset(key(uid), 'request', JSON.stringify(interaction), 'expiresAt', String(expiredAt))
        .expire(key(uid), opts.ttlSeconds)
        .set(returnKey(uid), JSON.stringify(back), 'EX', opts.ttlSeconds + EXPIRED_RETURN_SECONDS)
        .exec();
      return uid;
    },
    /** The request while it is parked and unexpired. */
    async get(uid: string): Promise<Interaction | undefined> {
      if (!UID.test(uid)) return undefined;
      const fields = await redis.hgetall(key(uid));
      return live(fields) ? decode(fields) : undefined;
    },
    /** Records page progress on a request still parked (its lifetime unchanged); false when it is gone. */
    async flag(uid: string, flags: InteractionFlags): Promise<boolean> {
      if (!UID.test(uid)) return false;
      const args = Object.entries(flags).flatMap(([k, v]) => (v === undefined ? [] : [k, v ? '1' : '0']));
      if (!args.length) return true;
      return (await redis.eval(FLAG, 1, key(uid), opts.clock(), ...args)) === 1;
    },
    /**
     * Removes and returns an unexpired request with its return record: exactly one caller finishes it (one
     * script reads and deletes).
     */
    async take(uid: string): Promise<Interaction | undefined> {
      if (!UID.test(uid)) return undefined;
      const flat = await redis.eval(TAKE, 2, key(uid), returnKey(uid), opts.clock());
      return Array.isArray(flat) ? decode(pairs(flat as string[])) : undefined;
    },
    /**
     * The return record of a request that is no longer parked (it expired; a finished one has none), within
     * EXPIRED_RETURN_SECONDS of its expiry by the host's clock.
     */
    async expiredReturn(uid: string): Promise<ExpiredReturn | undefined> {
      if (!UID.test(uid)) return undefined;
      return withinReturn(await redis.get(returnKey(uid)), opts.clock());
    },
    /**
     * Removes and returns the return record (with what is left of the request): exactly one caller answers
     * the client (GETDEL is one step), and only within EXPIRED_RETURN_SECONDS of the expiry.
     */
    async takeExpiredReturn(uid: string): Promise<ExpiredReturn | undefined> {
      if (!UID.test(uid)) return undefined;
      const replies = await redis.multi().getdel(returnKey(uid)).del(key(uid)).exec();
      return withinReturn(replies?.[0]?.[1] as string | null | undefined, opts.clock());
    },
  };
}

function withinReturn(raw: string | null | undefined, now: number): ExpiredReturn | undefined {
  if (!raw) return undefined;
  const back = JSON.parse(raw) as ExpiredReturn;
  return now < back.expiredAt + EXPIRED_RETURN_SECONDS * 1000 ? back : undefined;
}
