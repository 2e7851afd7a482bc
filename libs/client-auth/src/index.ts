// Request-bound assertions: client-auth JWTs for application backends and the generic EdDSA assertion verifier
// (rules in domain/, the client keys and the replay set in store/).
export * from './client-auth';
export * from './domain/bound-assertion';
export * from './domain/client-auth';
export * from './domain/ports';
export { createClientKeyStore } from './store/client-keys';
export { createReplaySet } from './store/replay-set';
