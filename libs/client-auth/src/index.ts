// Request-bound assertions: client-auth JWTs for application backends and the generic EdDSA assertion verifier.
export * from './bound-assertion';
export * from './client-auth';
