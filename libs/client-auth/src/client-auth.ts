// The hosts' entry to client-auth JWTs over their connections: binds the client-key store and the replay set once per
// pair of connections (not per request) and verifies through the domain (domain/client-auth.ts).
import type { Db } from '@svc/db';
import type { Clock } from '@svc/platform';
import type { Redis } from 'ioredis';
import { type ClientAuthResult, verifyClientAuthWith } from './domain/client-auth';
import type { ClientAuthPorts } from './domain/ports';
import { createClientKeyStore } from './store/client-keys';
import { createReplaySet } from './store/replay-set';

/** The ports over a host's connections; a host that keeps its own `ports` object binds them there once. */
export function createClientAuthPorts(db: Db, redis: Redis): ClientAuthPorts {
  return { clientKeys: createClientKeyStore(db), replay: createReplaySet(redis) };
}

const bound = new WeakMap<Db, WeakMap<Redis, ClientAuthPorts>>();

function portsOf(db: Db, redis: Redis): ClientAuthPorts {
  let byRedis = bound.get(db);
  if (!byRedis) {
    byRedis = new WeakMap();
    bound.set(db, byRedis);
  }
  let ports = byRedis.get(redis);
  if (!ports) {
    ports = createClientAuthPorts(db, redis);
    byRedis.set(redis, ports);
  }
  return ports;
}

export async function verifyClientAuth(
  deps: { db: Db; redis: Redis; clock: Clock },
  req: { authorization: string | undefined; rawBody: Buffer; audience: string },
): Promise<ClientAuthResult> {
  return verifyClientAuthWith(portsOf(deps.db, deps.redis), deps.clock, req);
}
