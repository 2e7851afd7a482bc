// Single use of platform tickets across every replica: the SHA-256 of the normalized ticket claimed through the one
// single-use claim (claimOnce: SET NX with expiry, WAIT for the configured replicas).
import { type ClaimDurability, claimOnce, toleratedRedisFailure } from '@svc/platform';
import type { Redis } from 'ioredis';
import type { TicketReplayStore } from '../domain/ports';

const key = (hash: string) => `replay:platform-ticket:${hash}`;

export function createTicketReplayStore(
  redis: Redis,
  ttlSeconds: number,
  durability: ClaimDurability,
): TicketReplayStore {
  return {
    claim: (hash) => claimOnce(redis, key(hash), ttlSeconds, durability),
    async release(hash) {
      await redis.del(key(hash)).catch(toleratedRedisFailure(redis, 'ticket_replay_release', undefined));
    },
  };
}
