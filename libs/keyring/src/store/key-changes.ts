// Key-change messages between replicas over Redis pub/sub: a scope id (or '*') on `keyring:changed`, published when
// keys change and heard on each host's dedicated subscriber connection, so every key ring drops its cached keys.
import { closeRedis } from '@svc/platform';
import type { Redis } from 'ioredis';
import type { KeyChangeFeed } from '../domain/ports';

export const KEY_CHANGE_CHANNEL = 'keyring:changed';

/** The feed over a dedicated subscriber connection; close() closes it (closeRedis, during an outage too). */
export function createKeyChangeFeed(subscriber: Redis): KeyChangeFeed {
  return {
    listen(listener) {
      void subscriber.subscribe(KEY_CHANGE_CHANNEL).catch(() => undefined);
      subscriber.on('message', (channel: string, message: string) => {
        if (channel === KEY_CHANGE_CHANNEL) listener(message);
      });
    },
    async close() {
      await closeRedis(subscriber);
    },
  };
}

/** Tells every replica's key ring to drop its cached keys for a scope (or all scopes with '*'). */
export async function publishKeyChange(redis: Redis, scopeId: string): Promise<void> {
  await redis.publish(KEY_CHANGE_CHANNEL, scopeId);
}
