// Single use of platform tickets across every replica: the SHA-256 of the normalized ticket claimed through the
// host's single-use claims (claimOnce: SET NX with expiry, WAIT for the configured replicas).
import { type SingleUseClaims, toleratedRedisFailure } from '@svc/platform';
import type { Redis } from 'ioredis';
import type { TicketReplayStore } from '../domain/ports';

const key = (hash: string) => `replay:platform-ticket:${hash}`;

export function createTicketReplayStore(
  redis: Redis,
  claims: SingleUseClaims,
  ttlSeconds: number,
): TicketReplayStore {
  return {
    claim: (hash) => claims.claim(key(hash), ttlSeconds),
    async release(hash) {
      await redis.del(key(hash)).catch(toleratedRedisFailure(redis, 'ticket_replay_release', undefined));
    },
  };
}
