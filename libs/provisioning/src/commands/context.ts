// What a command runs against, whichever adapter runs it (the admin CLI, the management host): the provisioning
// ports, the KEK, the settings the key commands read, and the announcements that tell running hosts of a change.
import type { AuditTrailStore } from '@svc/audit';
import type { TargetPolicy } from '@svc/events';
import type { RotationWindows } from '@svc/keyring';
import type { Clock } from '@svc/platform';
import type { Kek } from '@svc/token-core';
import type { ProvisioningPorts } from '../domain/ports';

export interface AdminContext {
  /** The adapter's one clock: every change a command stamps reads it. */
  clock: Clock;
  /**
   * The provisioning stores over the database, bound once when a command first needs them; commands reach the
   * database only through them.
   */
  provisioning(): ProvisioningPorts;
  /** The audit trail's read store over the same database (audit list, verify, export). */
  audit(): { auditTrail: AuditTrailStore };
  /**
   * The KEK, for the commands that seal or open secrets (called before anything changes). It throws when no key
   * was named: the CLI never falls back to the development key (tools/admin/src/context.ts, #37).
   */
  kek(): Kek;
  /** Base URL of the connect host (CONNECT_URL), where published terms are shown. */
  connectUrl(): string;
  /**
   * How long `keys rotate` (without --now) publishes a new key before it signs: the hosts' JWK Set max-age (from
   * KEY_PREPUBLISH_SECONDS, JWKS_MAX_AGE_SECONDS) plus their key cache lifetime (KEY_CACHE_TTL_MS); and that key
   * cache lifetime, for how long a retired key stays published.
   */
  keyRotation(): RotationWindows;
  /**
   * Tells every host's key ring that a scope's keys changed. Never throws: returns a warning for the operator
   * when Redis cannot be reached (the change is saved; hosts then pick it up when their key cache expires).
   */
  announceKeyChange(scopeId: string): Promise<string | undefined>;
  /** Tells every host's session cache that a session changed; a warning like announceKeyChange's on failure. */
  announceSessionChange(sid: string): Promise<string | undefined>;
  /**
   * Where event subscriptions may point: production (https only, no private addresses) and
   * EVENTS_ALLOW_PRIVATE_TARGETS. Without it the strict production policy applies.
   */
  eventTargets?(): TargetPolicy;
  close(): Promise<void>;
}
