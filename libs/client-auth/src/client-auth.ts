// The hosts' binding of client-auth JWTs to their connections: each host builds these ports once in its deps.ts and
// verifies through the domain (domain/client-auth.ts, verifyClientAuthWith); no route or domain holds a handle.
import type { Db } from '@svc/db';
import type { SingleUseClaims } from '@svc/platform';
import type { ClientAuthPorts } from './domain/ports';
import { createClientKeyStore } from './store/client-keys';
import { createReplaySet } from './store/replay-set';

/** The ports over a host's connections and single-use claims, bound once into the host's `ports` object. */
export function createClientAuthPorts(db: Db, claims: SingleUseClaims): ClientAuthPorts {
  return { clientKeys: createClientKeyStore(db), replay: createReplaySet(claims) };
}
