// The replay set of request-bound assertions in Redis: a `jti` claimed once across every replica (SET NX with
// expiry), under `replay:<namespace>:<id>`.
import type { Redis } from 'ioredis';
import type { ReplaySet } from '../domain/ports';

export function createReplaySet(redis: Redis): ReplaySet {
  return {
    async claimOnce(namespace, id, ttlSeconds) {
      const res = await redis.set(
        `replay:${namespace}:${id}`,
        '1',
        'EX',
        Math.max(1, Math.ceil(ttlSeconds)),
        'NX',
      );
      return res === 'OK';
    },
  };
}
