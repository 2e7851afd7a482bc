// JWK Set export: public members only, at most 32 keys, newest first.
import { type PublicJwk, publicJwkOf } from './signing-key';

export const MAX_JWKS_KEYS = 32;

export interface JwkSet {
  keys: PublicJwk[];
}

export function toJwkSet(keys: PublicJwk[]): JwkSet {
  return { keys: keys.slice(0, MAX_JWKS_KEYS).map(publicJwkOf) };
}
