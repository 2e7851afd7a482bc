// Provisioning: the operations behind `pnpm admin`, also used by tests and the demo to set up fixtures.
export * from './domain/acting-as';
export * from './domain/describe';
export * from './domain/email-domains';
export * from './domain/events';
export * from './domain/inspect';
export * from './domain/keys-and-sessions';
export * from './domain/listing';
export * from './domain/oidc-client-changes';
export * from './domain/oidc-clients';
export * from './domain/oidc-registration';
export * from './domain/operator-keys';
export type * from './domain/ports';
export * from './domain/principals';
export * from './domain/secrets';
export * from './domain/tenancy';
export * from './domain/terms';
export * from './errors';
