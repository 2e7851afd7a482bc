// The resend gap of emailed codes in Redis (domain/ports.ts SendGap): one key per address living the gap, set by
// every code sent and claimed by SET NX for a resend, so the claim is atomic across replicas.
import type { Redis } from 'ioredis';
import type { SendGap } from '../domain/ports';

export function createSendGap(redis: Redis, opts: { keyPrefix: string; seconds: number }): SendGap {
  const key = (email: string) => `rl:${opts.keyPrefix}:${email}`;
  const ms = opts.seconds * 1000;
  return {
    async mark(email) {
      await redis.set(key(email), '1', 'PX', ms);
    },
    async claim(email) {
      if ((await redis.set(key(email), '1', 'PX', ms, 'NX')) === 'OK') return undefined;
      const left = await redis.pttl(key(email));
      // Lapsed between the two commands: the next claim goes through; report the shortest wait.
      return left > 0 ? left : 1;
    },
  };
}
