// The platform ID-token key set's first key: made at start-up, before the host listens, so the first /token of a fresh
// deployment signs instead of answering 503 (the worker's rotation keeps the key's lifecycle from then on).
import { type KeyRing, OIDC_SCOPE } from '@svc/keyring';
import type { Clock } from '@svc/platform';

/** The key lifecycle's steps over the host's connections, bound in deps.ts. */
export interface PlatformKeySteps {
  /** Makes the scope's ACTIVE key when there is none, under the scope's advisory lock; its kid either way. */
  ensureActiveKey(scopeId: string, at: Date): Promise<string>;
  /** Tells every replica's key ring to drop its cached keys of the scope. */
  publishKeyChange(scopeId: string): Promise<void>;
}

/**
 * Makes the OIDC scope's ACTIVE key when there is none. Idempotent, and under the scope's advisory lock
 * (ensureActiveKey), so replicas starting at once on a fresh database make exactly one.
 */
export async function ensurePlatformKey(
  steps: PlatformKeySteps,
  values: { keyRing: KeyRing; clock: Clock },
): Promise<void> {
  if (await values.keyRing.signer(OIDC_SCOPE)) return;
  await steps.ensureActiveKey(OIDC_SCOPE, new Date(values.clock()));
  values.keyRing.invalidate(OIDC_SCOPE);
  await steps.publishKeyChange(OIDC_SCOPE);
}
