// The ports of the key ring and the signing-key lifecycle: the signing keys in PostgreSQL (store/signing-keys.ts) and
// the key-change messages between replicas (store/key-changes.ts, Redis pub/sub). No database or Redis handle here.
import type { GeneratedSigningKey, PublicJwk } from '@svc/token-core';

/** The platform-wide OIDC key set's scope id (every other scope id is an application id). */
export const OIDC_SCOPE = 'oidc';

/** A key's place in its lifecycle (no key material). */
export interface KeyState {
  id: string;
  kid: string;
  status: 'NEXT' | 'ACTIVE' | 'RETIRING' | 'EXPIRED' | 'REVOKED';
  createdAt: Date;
  activatesAt: Date | null;
  activatedAt: Date | null;
}

/** A key the ring may publish or sign with: NEXT, ACTIVE or RETIRING, newest first. */
export interface RingKey {
  kid: string;
  status: 'NEXT' | 'ACTIVE' | 'RETIRING';
  publicJwk: PublicJwk;
  privateKeyEnc: string;
  publishUntil: Date | null;
}

/** An ACTIVE key's sealed private key, as readiness opens it under the KEK. */
export interface SealedKey {
  id: string;
  kid: string;
  privateKeyEnc: string;
}

/** One scope's keys, read and written through one client (the scope's locked transaction, or the pool). */
export interface ScopeKeys {
  active(): Promise<KeyState | undefined>;
  /** The oldest waiting NEXT key. */
  firstNext(): Promise<KeyState | undefined>;
  byKid(kid: string): Promise<KeyState | undefined>;
  insert(
    key: GeneratedSigningKey,
    status: 'NEXT' | 'ACTIVE',
    at: Date,
    activatesAt?: Date,
  ): Promise<KeyState>;
  activate(id: string, at: Date): Promise<KeyState>;
  retire(id: string, at: Date, publishUntil: Date): Promise<void>;
  setActivatesAt(id: string, activatesAt: Date): Promise<void>;
  revoke(id: string, at: Date): Promise<void>;
  /** RETIRING keys whose window has closed by `at` become EXPIRED; how many did. */
  expireRetired(at: Date): Promise<number>;
  /** Every RETIRING key but the most recently retired one becomes EXPIRED; how many did. */
  expireAllButNewestRetiring(): Promise<number>;
  /** How many keys the scope publishes at `at`, and when the first RETIRING one leaves the set. */
  publishedCount(at: Date): Promise<{ count: number; roomAt: Date | undefined }>;
  /** The kids the scope publishes at `at`, newest first. */
  publishedKids(at: Date): Promise<string[]>;
  /** Of an application scope: its newest session expiry and the longest refresh TTL its rules set. */
  sessionHorizon(): Promise<{ latestExpiry: Date | undefined; longestRuledRefreshTtl: number | undefined }>;
}

/** Every statement over signing keys the ring and the lifecycle need. */
export interface SigningKeyStore {
  /** The keys a scope may publish, newest first (the key ring's one read per scope load). */
  readRingKeys(scopeId: string): Promise<RingKey[]>;
  /** ACTIVE keys of every scope with their sealed private keys, by id after `after`, at most `limit`. */
  readActiveSealedKeys(after: string | undefined, limit: number): Promise<SealedKey[]>;
  /** Application ids with a lifecycle step due (see store/signing-keys.ts readDueApplicationScopes). */
  readDueApplicationScopes(q: {
    at: Date;
    prepublishFrom: Date;
    after: string;
    limit: number;
  }): Promise<string[]>;
  /** One scope's keys over the pool (no lock). */
  scopeKeys(scopeId: string): ScopeKeys;
  /** Runs `work` in one transaction holding the scope's lock (lifecycle changes never interleave across replicas). */
  withLockedScope<T>(scopeId: string, work: (keys: ScopeKeys) => Promise<T>): Promise<T>;
}

/** Key-change messages from other replicas: a scope id whose keys changed, or '*' for every scope. */
export interface KeyChangeFeed {
  /** Calls `listener` for each message from now on. */
  listen(listener: (scopeId: string) => void): void;
  close(): Promise<void>;
}
