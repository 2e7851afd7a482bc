// Key ring (read side, cached) and signing-key lifecycle (write side) shared by hosts, worker and admin: the rules in
// domain/, the signing keys (PostgreSQL) and key-change messages (Redis pub/sub) in store/, bound in key-ring.ts.
export type { KeyRing, KeyRingPorts, KeyRingValues } from './domain/key-ring';
export { createKeyRingOn } from './domain/key-ring';
export * as keyLifecycle from './domain/lifecycle';
export {
  KeySetFullError,
  type PrepublishedRotation,
  type RotationWindows,
  type ScheduledRotationResult,
} from './domain/lifecycle';
export * from './domain/ports';
export * from './domain/schedule';
export * from './key-ring';
export { createKeyChangeFeed, KEY_CHANGE_CHANNEL, publishKeyChange } from './store/key-changes';
export { createSigningKeyStore } from './store/signing-keys';
