// Device authorizations (RFC 8628) shared by the device host (the spec's wire and the approval page) and the OIDC
// host (the standard wire): one table and one user-code space, one polling state per authorization in Redis, the
// codes and the settings both hosts read. Rules and ports under domain/, PostgreSQL and Redis under store/.
export * from './domain/codes';
export * from './domain/config';
export * from './domain/ports';
export * from './domain/start';
export { createAuthorizationStore } from './store/authorizations';
export { createDeviceGrantStores } from './store/device-grant-stores';
export { createPollingStore, type PollingOptions } from './store/polling';
