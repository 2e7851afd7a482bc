// Session change notifications over Redis pub/sub, so every replica's short-lived session caches drop at once.
import type { Redis } from 'ioredis';

export const SESSION_CHANGE_CHANNEL = 'sessions:changed';

export async function publishSessionChange(redis: Redis, sid: string): Promise<void> {
  await redis.publish(SESSION_CHANGE_CHANNEL, sid).catch(() => undefined);
}

export async function publishSessionChanges(redis: Redis, sids: string[]): Promise<void> {
  if (sids.length === 0) return;
  // Batched: one message naming many sessions (comma-free ids).
  for (let i = 0; i < sids.length; i += 500) {
    await redis.publish(SESSION_CHANGE_CHANNEL, sids.slice(i, i + 500).join(',')).catch(() => undefined);
  }
}
