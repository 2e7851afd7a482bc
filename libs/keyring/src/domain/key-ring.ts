// The key ring every host reads: per-scope signing and verification keys from the signing-key store, cached in
// process, evicted at once by a key-change message from another replica, and in any case after KEY_CACHE_TTL_MS.
import type { KeyObject } from 'node:crypto';
import type { Clock } from '@svc/platform';
import {
  importSigningKey,
  importVerificationKey,
  type Kek,
  open,
  type PublicJwk,
  type Signer,
  toJwkSet,
} from '@svc/token-core';
import type { KeyChangeFeed, SigningKeyStore } from './ports';

interface ScopeEntry {
  loadedAt: number;
  signer?: Signer;
  signerKid?: string;
  signerEnc?: string;
  verifiers: Map<string, KeyObject>;
  jwks: PublicJwk[];
  jwksBody: string;
}

export interface KeyRing {
  /** The ACTIVE signer of an application (or OIDC_SCOPE); undefined when the scope has none. */
  signer(scopeId: string): Promise<Signer | undefined>;
  /** The public key for `kid` if it is published for that scope (next, active or retiring). */
  verificationKey(scopeId: string, kid: string): Promise<KeyObject | undefined>;
  /** The published JWK Set, serialized once per load. */
  jwks(scopeId: string): Promise<{ keys: PublicJwk[]; body: string }>;
  /**
   * Loads every ACTIVE signing key of every scope and opens its sealed private key under this process's KEK, in
   * batches; throws when one cannot be read or opened. Returns how many were loaded. Readiness waits for it.
   */
  loadSigningKeys(): Promise<number>;
  invalidate(scopeId?: string): void;
  close(): Promise<void>;
}

const LOAD_BATCH = 500;

/** The key ring's ports: the signing keys, and the change messages when the host listens for them. */
export interface KeyRingPorts {
  keys: SigningKeyStore;
  /** When given, key changes evict the cache immediately. */
  changes?: KeyChangeFeed;
}

export interface KeyRingValues {
  kek: Kek;
  /** How long keys are kept without a change message (the host's KEY_CACHE_TTL_MS; default 30 s). */
  cacheTtlMs?: number;
  /** The host's clock: the cache lifetime and the retiring keys' publication windows are judged by it. */
  clock: Clock;
}

export function createKeyRingOn(ports: KeyRingPorts, opts: KeyRingValues): KeyRing {
  const ttl = opts.cacheTtlMs ?? 30_000;
  const clock = opts.clock;
  const cache = new Map<string, Promise<ScopeEntry>>();
  const unknownKidReload = new Map<string, number>();

  ports.changes?.listen((scopeId) => {
    if (scopeId === '*') cache.clear();
    else cache.delete(scopeId);
  });

  async function load(scopeId: string): Promise<ScopeEntry> {
    const rows = await ports.keys.readRingKeys(scopeId);
    const at = clock();
    const published = rows.filter(
      (r) => r.status !== 'RETIRING' || !r.publishUntil || r.publishUntil.getTime() > at,
    );
    const active = published.find((r) => r.status === 'ACTIVE');
    const jwks = toJwkSet(published.map((r) => r.publicJwk)).keys;
    const entry: ScopeEntry = {
      loadedAt: at,
      verifiers: new Map(),
      jwks,
      jwksBody: JSON.stringify({ keys: jwks }),
      signerKid: active?.kid,
      signerEnc: active?.privateKeyEnc,
    };
    for (const r of published) {
      entry.verifiers.set(r.kid, importVerificationKey(r.publicJwk));
    }
    return entry;
  }

  function entry(scopeId: string): Promise<ScopeEntry> {
    const cached = cache.get(scopeId);
    if (cached) {
      return cached.then((e) => {
        if (clock() - e.loadedAt < ttl) return e;
        if (cache.get(scopeId) === cached) cache.delete(scopeId);
        return entry(scopeId);
      });
    }
    const loading = load(scopeId);
    cache.set(scopeId, loading);
    loading.catch(() => cache.delete(scopeId));
    return loading;
  }

  return {
    async signer(scopeId) {
      const e = await entry(scopeId);
      if (!e.signerKid || !e.signerEnc) return undefined;
      const kid = e.signerKid;
      e.signer ??= { kid, key: importSigningKey(opts.kek, kid, e.signerEnc) };
      return e.signer;
    },
    async verificationKey(scopeId, kid) {
      let e = await entry(scopeId);
      let key = e.verifiers.get(kid);
      if (!key) {
        // An unknown kid may be a key made by another replica a moment ago: reload once, at most once a second.
        const last = unknownKidReload.get(scopeId) ?? 0;
        if (clock() - last > 1000) {
          unknownKidReload.set(scopeId, clock());
          cache.delete(scopeId);
          e = await entry(scopeId);
          key = e.verifiers.get(kid);
        }
      }
      return key;
    },
    async jwks(scopeId) {
      const e = await entry(scopeId);
      return { keys: e.jwks, body: e.jwksBody };
    },
    async loadSigningKeys() {
      let loaded = 0;
      let after: string | undefined;
      for (;;) {
        const rows = await ports.keys.readActiveSealedKeys(after, LOAD_BATCH);
        for (const r of rows) {
          try {
            open(opts.kek, r.privateKeyEnc, r.kid).fill(0);
          } catch {
            throw new Error(`signing key ${r.kid} cannot be opened with this KEY_ENCRYPTION_KEY`);
          }
        }
        loaded += rows.length;
        if (rows.length < LOAD_BATCH) return loaded;
        after = rows[rows.length - 1]!.id;
      }
    },
    invalidate(scopeId) {
      if (scopeId) cache.delete(scopeId);
      else cache.clear();
    },
    async close() {
      cache.clear();
      await ports.changes?.close();
    },
  };
}
