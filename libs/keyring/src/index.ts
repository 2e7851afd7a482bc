// Key ring (read side, cached) and signing-key lifecycle (write side) shared by hosts, worker and admin.
export * from './due-scopes';
export * from './key-ring';
export * from './lifecycle';
export * from './schedule';
export { OIDC_SCOPE } from './store/signing-keys';
