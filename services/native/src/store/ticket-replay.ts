// Single use of platform tickets across every replica: a Redis SET NX on the SHA-256 of the normalized ticket.
import { toleratedRedisFailure } from '@svc/platform';
import type { Redis } from 'ioredis';
import type { TicketReplayStore } from '../domain/ports';

const key = (hash: string) => `replay:platform-ticket:${hash}`;

export function createTicketReplayStore(redis: Redis, ttlSeconds: number): TicketReplayStore {
  return {
    async claim(hash) {
      return (await redis.set(key(hash), '1', 'EX', ttlSeconds, 'NX')) === 'OK';
    },
    async release(hash) {
      await redis.del(key(hash)).catch(toleratedRedisFailure(redis, 'ticket_replay_release', undefined));
    },
  };
}
