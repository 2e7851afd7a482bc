// The hosts' entry to the key ring and the signing-key lifecycle over their connections: binds the signing-key store
// (PostgreSQL) and the key-change feed (the dedicated Redis subscriber) and hands them to the rules in domain/. The
// lifecycle steps keep their `db`-first signatures for the worker, the admin tool and provisioning.
import type { Db } from '@svc/db';
import type { Redis } from 'ioredis';
import { dueApplicationScopes as dueOn } from './domain/due-scopes';
import { createKeyRingOn, type KeyRing, type KeyRingValues } from './domain/key-ring';
import * as lifecycle from './domain/lifecycle';
import type { SigningKeyStore } from './domain/ports';
import { createKeyChangeFeed } from './store/key-changes';
import { createSigningKeyStore } from './store/signing-keys';

export interface KeyRingOptions extends KeyRingValues {
  db: Db;
  /** A dedicated subscriber connection; when given, key changes evict the cache immediately. */
  subscriber?: Redis;
}

export function createKeyRing(opts: KeyRingOptions): KeyRing {
  return createKeyRingOn(
    {
      keys: createSigningKeyStore(opts.db),
      changes: opts.subscriber ? createKeyChangeFeed(opts.subscriber) : undefined,
    },
    opts,
  );
}

type Rest<F> = F extends (store: SigningKeyStore, ...rest: infer R) => unknown ? R : never;

/** A lifecycle step over a database: the signing-key store bound to it for the one call (not a hot path). */
function overDb<F extends (store: SigningKeyStore, ...rest: never[]) => unknown>(step: F) {
  return (db: Db, ...rest: Rest<F>): ReturnType<F> =>
    (step as (store: SigningKeyStore, ...rest: Rest<F>) => ReturnType<F>)(createSigningKeyStore(db), ...rest);
}

/** Makes sure a scope has an active signer (first key of a new application, or the OIDC key). */
export const ensureActiveKey = overDb(lifecycle.ensureActiveKey);
/** Prepublishes a NEXT key that becomes the signer at `activatesAt` (no-op if one is already waiting). */
export const prepublishNextKey = overDb(lifecycle.prepublishNextKey);
/** Promotes the NEXT key whose time has come (or, with `force`, any) and retires the old signer. */
export const activateNextKey = overDb(lifecycle.activateNextKey);
/** An operator's rotation that publishes the new key for `publishedSeconds` before it signs. */
export const prepublishRotation = overDb(lifecycle.prepublishRotation);
/** Moves retiring keys past their publication window to EXPIRED. */
export const expireRetiredKeys = overDb(lifecycle.expireRetiredKeys);
/** Emergency revocation; revoking the signer promotes a NEXT key or makes a fresh one. */
export const revokeKey = overDb(lifecycle.revokeKey);
/** The kids currently published for a scope, newest first. */
export const publishedKids = overDb(lifecycle.publishedKids);
/** One scheduled lifecycle step for a scope, under the scope lock. */
export const runScheduledRotation = overDb(lifecycle.runScheduledRotation);
/** Application ids with a lifecycle step due at `at`. */
export const dueApplicationScopes = overDb(dueOn);
