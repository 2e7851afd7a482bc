// Device authorizations (RFC 8628) shared by the device host (the spec's wire and the approval page) and the OIDC
// host (the standard wire): one table and one user-code space, one polling state per authorization in Redis, the
// codes and the settings both hosts read.
export * from './authorizations';
export * from './codes';
export * from './config';
export * from './polling';
export * from './start';
