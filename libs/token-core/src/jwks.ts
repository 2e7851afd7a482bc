// JWK Set export: public members only, in the order given (newest first). The set is never cut: every key whose
// tokens can still be valid must stay in it, and the key lifecycle keeps it at MAX_JWKS_KEYS or fewer.
import { type PublicJwk, publicJwkOf } from './signing-key';

/** The spec's limit on a JWK Set; enforced by the key lifecycle (libs/keyring), which refuses to exceed it. */
export const MAX_JWKS_KEYS = 32;

export interface JwkSet {
  keys: PublicJwk[];
}

export function toJwkSet(keys: PublicJwk[]): JwkSet {
  return { keys: keys.map(publicJwkOf) };
}
