// Operator-key lookups for authentication, through a per-process cache of OPERATOR_KEY_CACHE_MS (1 s by default):
// a revoked or expired key stops working on every replica within it, without a message between replicas.
import { createHash } from 'node:crypto';
import type { Clock } from '@svc/platform';
import { createTtlCache } from '@svc/platform';
import { type OperatorKeyView, operatorKeyOf, type ProvisioningPorts } from '@svc/provisioning';
import type { OperatorKeysPort } from '../domain/ports';

export function createOperatorKeyLookup(
  ports: Pick<ProvisioningPorts, 'operatorKeys'>,
  opts: { ttlMs: number; clock: Clock },
): OperatorKeysPort {
  const cache = createTtlCache<string, OperatorKeyView | null>({
    ttlMs: opts.ttlMs,
    clock: opts.clock,
    max: 10_000,
  });
  return {
    async find(secret) {
      // Cached by the secret's hash, so the cache holds no secret; an unknown key is cached too.
      const id = createHash('sha256').update(secret).digest('base64url');
      const key = await cache.get(id, async () => (await operatorKeyOf(ports, secret, opts.clock())) ?? null);
      return key === null || expired(key, opts.clock()) ? undefined : key;
    },
  };
}

function expired(key: OperatorKeyView | null, now: number): boolean {
  return key !== null && key.expiresAt !== null && key.expiresAt.getTime() <= now;
}
