// Events to applications (issue 39): event names and URIs, the SET's claims, the target URL rules, the subscription
// and outbox rules and one delivery pass. Stores in `@svc/events/stores`, the SQL other stores embed in
// `@svc/events/shared-sql`, the HTTP push in `@svc/events/push`.
export * from './domain/backoff';
export * from './domain/delivery';
export * from './domain/event-types';
export * from './domain/logout-token-body';
export * from './domain/outbox-views';
export * from './domain/ports';
export * from './domain/set-body';
export * from './domain/set-claims';
export * from './domain/subscriptions';
export * from './domain/target-url';
