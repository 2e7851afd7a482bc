// Issuance core shared by every issuing host: application context, checks, sessions, rotation, errands, terms; the
// stores under store/ hold every statement they make.
export * from './application-context';
export * from './checks';
export * from './claim-state';
export * from './deps';
export * from './domain/ports';
export * from './domain/refresh-policy';
export * from './email-domain';
export * from './errands';
export * from './held-authority';
export * from './issue';
export * from './presented-token';
export * from './refresh-jti';
export * from './rotation';
export * from './snapshot';
export * from './store/accounts';
export * from './store/agreements';
export * from './store/applications';
export * from './store/errands';
export * from './store/issuance-reads';
export * from './store/sector-subjects';
export * from './store/session-events';
export * from './store/sessions';
export * from './store/unanswered-rotations';
export * from './terms';
export * from './workload-authority';
