// Issuance core shared by every issuing host: application context, checks, sessions, rotation, errands, terms.
export * from './application-context';
export * from './checks';
export * from './claim-state';
export * from './deps';
export * from './email-domain';
export * from './errands';
export * from './host-core';
export * from './issue';
export * from './presented-token';
export * from './refresh-jti';
export * from './rotation';
export * from './sector-subjects';
export * from './session-events';
export * from './snapshot';
export * from './terms';
export * from './unanswered-rotations';
export * from './workload-authority';
