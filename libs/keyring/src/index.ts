// Key ring (read side, cached) and signing-key lifecycle (write side) shared by hosts, worker and admin.
export * from './key-ring';
export * from './lifecycle';
