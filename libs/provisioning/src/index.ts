// Provisioning: the operations behind `pnpm admin`, also used by tests and the demo to set up fixtures.
export * from './domain/describe';
export type * from './domain/ports';
export * from './domain/tenancy';
export * from './email-domains';
export * from './errors';
export * from './inspect';
export * from './keys-and-sessions';
export * from './listing';
export * from './oidc-client-changes';
export * from './oidc-clients';
export * from './principals';
export * from './secrets';
export * from './terms';
