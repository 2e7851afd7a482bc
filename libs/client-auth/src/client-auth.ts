// The hosts' binding of client-auth JWTs to their connections: each host builds these ports once in its deps.ts and
// verifies through the domain (domain/client-auth.ts, verifyClientAuthWith); no route or domain holds a handle.
import type { Db } from '@svc/db';
import type { ClaimDurability } from '@svc/platform';
import type { Redis } from 'ioredis';
import type { ClientAuthPorts } from './domain/ports';
import { createClientKeyStore } from './store/client-keys';
import { createReplaySet } from './store/replay-set';

/**
 * The ports over a host's connections, bound once into the host's `ports` object; `durability` is the host's
 * REDIS_CLAIM_REPLICAS and REDIS_CLAIM_WAIT_MS (config.redisClaim).
 */
export function createClientAuthPorts(db: Db, redis: Redis, durability: ClaimDurability): ClientAuthPorts {
  return { clientKeys: createClientKeyStore(db), replay: createReplaySet(redis, durability) };
}
