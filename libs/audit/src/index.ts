// The audit trail (docs/audit.md): actor and change types, the hash chain, and the reads, verification and
// retention every adapter (admin CLI, management host, worker) shares. Stores: `@svc/audit/stores`.
export * from './domain/actors';
export * from './domain/chain';
export * from './domain/errors';
export type * from './domain/ports';
export * from './domain/trail';
export * from './domain/types';
