// The platform ID-token key set's first key: made at start-up, before the host listens, so the first /token of a fresh
// deployment signs instead of answering 503 (the worker's rotation keeps the key's lifecycle from then on).
import type { Db } from '@svc/db';
import { ensureActiveKey, type KeyRing, OIDC_SCOPE, publishKeyChange } from '@svc/keyring';
import type { Clock, Redis } from '@svc/platform';
import type { Kek } from '@svc/token-core';

/**
 * Makes the OIDC scope's ACTIVE key when there is none (bound over the connections in deps.ts). Idempotent, and under the scope's advisory lock
 * (ensureActiveKey), so replicas starting at once on a fresh database make exactly one.
 */
export async function ensurePlatformKey(deps: {
  db: Db;
  redis: Redis;
  kek: Kek;
  keyRing: KeyRing;
  clock: Clock;
}): Promise<void> {
  if (await deps.keyRing.signer(OIDC_SCOPE)) return;
  await ensureActiveKey(deps.db, deps.kek, OIDC_SCOPE, new Date(deps.clock()));
  deps.keyRing.invalidate(OIDC_SCOPE);
  await publishKeyChange(deps.redis, OIDC_SCOPE);
}
