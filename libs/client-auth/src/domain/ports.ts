// The ports request-bound assertion checks work through: the registered client keys and the replay set that makes
// each assertion single use across replicas. store/ implements them over PostgreSQL and Redis.
import type { JWK } from 'jose';

export interface ActiveClientKey {
  jwk: JWK;
  applicationId: string;
  anchor: string;
}

export interface ClientKeyStore {
  /** The key named by `kid` when it exists and is ACTIVE. */
  findActive(kid: string): Promise<ActiveClientKey | undefined>;
}

export interface ReplaySet {
  /** Claims `id` once in `namespace` across every replica for `ttlSeconds` (at least 1). False when already seen. */
  claimOnce(namespace: string, id: string, ttlSeconds: number): Promise<boolean>;
}

/** What verifyClientAuthWith needs, bound once by the host (createClientAuthPorts). */
export interface ClientAuthPorts {
  clientKeys: ClientKeyStore;
  replay: ReplaySet;
}
