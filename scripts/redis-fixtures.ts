// Redis-store fixtures shared by the slot lint (redis-slots.test.ts) and the engine tests (engines/): an OIDC
// interaction store over a given connection and a request to park in it.
import { type Redis, systemClock } from '@svc/platform';
import { uniqueName } from '@svc/testkit';
import type { Interaction } from '../services/oidc/src/domain/ports';
import { createInteractionStore } from '../services/oidc/src/store/interactions';

/** An interaction store under a unique prefix on `redis`, with the smallest request it parks and takes back. */
export function interactionsOn(redis: Redis) {
  const store = createInteractionStore(redis, {
    redisPrefix: uniqueName('o'),
    ttlSeconds: 60,
    clock: systemClock,
  });
  const parked = {
    clientId: 'c',
    redirectUri: 'https://app.example/cb',
    responseMode: 'query',
    prompt: [],
    createdAt: Date.now(),
  } as unknown as Interaction;
  return { store, parked };
}
