// Provisioning: the operations behind `pnpm admin`, also used by tests and the demo to set up fixtures.
export * from './domain/describe';
export * from './domain/email-domains';
export type * from './domain/ports';
export * from './domain/principals';
export * from './domain/tenancy';
export * from './errors';
export * from './inspect';
export * from './keys-and-sessions';
export * from './listing';
export * from './oidc-client-changes';
export * from './oidc-clients';
export * from './secrets';
export * from './terms';
