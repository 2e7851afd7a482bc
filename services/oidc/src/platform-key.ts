// The platform ID-token key set's first key: made at start-up, before the host listens, so the first /token of a fresh
// deployment signs instead of answering 503 (the worker's rotation keeps the key's lifecycle from then on).
import { ensureActiveKey, OIDC_SCOPE, publishKeyChange } from '@svc/keyring';
import type { OidcDeps } from './deps';

/**
 * Makes the OIDC scope's ACTIVE key when there is none. Idempotent, and under the scope's advisory lock
 * (ensureActiveKey), so replicas starting at once on a fresh database make exactly one.
 */
export async function ensurePlatformKey(deps: Pick<OidcDeps, 'db' | 'kek' | 'keyRing' | 'redis' | 'clock'>) {
  if (await deps.keyRing.signer(OIDC_SCOPE)) return;
  await ensureActiveKey(deps.db, deps.kek, OIDC_SCOPE, new Date(deps.clock()));
  deps.keyRing.invalidate(OIDC_SCOPE);
  await publishKeyChange(deps.redis, OIDC_SCOPE);
}
