// Single use of platform tickets across every replica: a Redis SET NX on the SHA-256 of the normalized ticket.
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

const key = (hash: string) => `replay:platform-ticket:${hash}`;

export function ticketHash(normalizedHex: string): string {
  return createHash('sha256').update(normalizedHex).digest('hex');
}

export function createTicketReplayStore(redis: Redis, ttlSeconds: number) {
  return {
    /** True when this call is the first to present the ticket; false when it was seen before. */
    async claim(hash: string): Promise<boolean> {
      return (await redis.set(key(hash), '1', 'EX', ttlSeconds, 'NX')) === 'OK';
    },
    /** Frees a claim when verification could not happen at all (Steam unreachable), so the client may retry. */
    async release(hash: string): Promise<void> {
      await redis.del(key(hash)).catch(() => undefined);
    },
  };
}

export type TicketReplayStore = ReturnType<typeof createTicketReplayStore>;
