// The replay set of DPoP proofs (RFC 9449 11.1) for every host that takes them (OIDC /token, /par and /userinfo,
// session /userinfo): a proof's jti is claimed once per key across every replica, through the host's single-use
// claims (Redis SET NX with expiry, WAIT for the configured replicas). A Redis failure throws: the request is
// refused (503), never accepted without the claim.
import { createHash } from 'node:crypto';
import type { SingleUseClaims } from '@svc/platform';
import type { DpopReplay } from '@svc/token-core';

export function createDpopReplay(claims: SingleUseClaims): DpopReplay {
  // The jti is the client's own text (up to 256 characters): the key holds its hash, one length for every proof.
  return (jkt, jti, ttlSeconds) =>
    claims.claim(
      `replay:dpop:${createHash('sha256').update(`${jkt}\u0000${jti}`).digest('base64url')}`,
      ttlSeconds,
    );
}
