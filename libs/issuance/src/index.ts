// The issuance core shared by every issuing host (`@svc/issuance`): the rules under domain/ (application context,
// checks, sessions, rotation, errands, terms) and the ports they take (domain/ports.ts). The stores under store/
// implement those ports; hosts bind them through `@svc/issuance/stores` (their combined reads too: credential
// reads, session states, userinfo reads), and `@svc/issuance/shared-sql` holds only the session-change channel.
export * from './domain/application-context';
export * from './domain/checks';
export * from './domain/claim-state';
export * from './domain/credential-reads';
export * from './domain/deps';
export * from './domain/email-domain';
export * from './domain/errands';
export * from './domain/held-authority';
export * from './domain/issue';
export * from './domain/ports';
export * from './domain/presented-token';
export * from './domain/refresh-jti';
export * from './domain/refresh-policy';
export * from './domain/rotation';
export * from './domain/session-states';
export * from './domain/snapshot';
export * from './domain/terms';
export * from './domain/userinfo-reads';
export * from './domain/workload-authority';
