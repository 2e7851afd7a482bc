// Token core: signing keys, JWK Sets, token minting and verification, sector subjects, TTLs and claim views.
export * from './claims';
export * from './dpop';
export * from './dpop-binding';
export * from './jwks';
export * from './jws';
export * from './kek';
export * from './mint';
export * from './response-types';
export * from './sector-subject';
export * from './signing-key';
export * from './ttl';
export * from './typ';
export * from './verify';
