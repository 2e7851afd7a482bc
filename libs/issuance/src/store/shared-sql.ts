// What `@svc/issuance/shared-sql` still gives other packages: the Redis channel of session changes (the session
// host's cache subscriber, the admin tool's publisher). No SQL: the combined reads other hosts need (native's
// credential and errand-session reads, the OIDC userinfo read) are issuance stores behind the core's ports
// (credential-reads.ts, session-states.ts, userinfo-reads.ts), so a host never embeds the core's fragments (#37).
export { SESSION_CHANGE_CHANNEL } from './session-events';
