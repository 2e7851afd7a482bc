// The replay set of request-bound assertions in Redis: a `jti` claimed once across every replica under
// `replay:<namespace>:<id>`, through the one single-use claim (claimOnce: SET NX with expiry, WAIT for the
// configured replicas).
import { type ClaimDurability, claimOnce } from '@svc/platform';
import type { Redis } from 'ioredis';
import type { ReplaySet } from '../domain/ports';

export function createReplaySet(redis: Redis, durability: ClaimDurability): ReplaySet {
  return {
    claimOnce: (namespace, id, ttlSeconds) =>
      claimOnce(redis, `replay:${namespace}:${id}`, ttlSeconds, durability),
  };
}
