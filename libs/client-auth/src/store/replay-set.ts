// The replay set of request-bound assertions in Redis: a `jti` claimed once across every replica under
// `replay:<namespace>:<id>`, through the host's single-use claims (claimOnce: SET NX with expiry, WAIT for the
// configured replicas).
import type { SingleUseClaims } from '@svc/platform';
import type { ReplaySet } from '../domain/ports';

export function createReplaySet(claims: SingleUseClaims): ReplaySet {
  return {
    claimOnce: (namespace, id, ttlSeconds) => claims.claim(`replay:${namespace}:${id}`, ttlSeconds),
  };
}
