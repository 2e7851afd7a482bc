// Store of session change notifications (Redis pub/sub): every replica's session caches drop at once.
import { toleratedRedisFailure } from '@svc/platform';
import type { Redis } from 'ioredis';
import type { SessionEventsPort } from '../domain/ports';

export const SESSION_CHANGE_CHANNEL = 'sessions:changed';

async function publishSessionChange(redis: Redis, sid: string): Promise<void> {
  await redis
    .publish(SESSION_CHANGE_CHANNEL, sid)
    .catch(toleratedRedisFailure(redis, 'session_change_publish', undefined));
}

async function publishSessionChanges(redis: Redis, sids: string[]): Promise<void> {
  if (sids.length === 0) return;
  // Batched: one message naming many sessions (comma-free ids).
  for (let i = 0; i < sids.length; i += 500) {
    await redis
      .publish(SESSION_CHANGE_CHANNEL, sids.slice(i, i + 500).join(','))
      .catch(toleratedRedisFailure(redis, 'session_change_publish', undefined));
  }
}

export function createSessionEventsStore(redis: Redis): SessionEventsPort {
  return {
    publishSessionChange: (sid) => publishSessionChange(redis, sid),
    publishSessionChanges: (sids) => publishSessionChanges(redis, sids),
  };
}
