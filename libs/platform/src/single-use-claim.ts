// Single use across every replica of a host (the replay sets of client-auth JWT ids, public-key assertion ids and
// platform tickets): one Redis SET NX with expiry, and, when the operator runs Redis replicas, WAIT for them in the
// same round trip. Redis replicates asynchronously: a claim the primary acknowledged but had not sent on is gone
// after a Sentinel or Cluster failover, and the same assertion or ticket is accepted again (RELIABILITY.md "What a
// Redis failover can lose"). A claim is honoured only once the configured replicas hold it; otherwise the request
// fails closed with a dependency failure (503 with Retry-After), never an acceptance.
import type { Redis } from 'ioredis';

/** What a claim waits for (REDIS_CLAIM_REPLICAS, REDIS_CLAIM_WAIT_MS). */
export interface ClaimDurability {
  /** Replicas that must hold a claim before it is honoured; 0 sends no WAIT (a single server). */
  replicas: number;
  /** How long the primary waits for them (WAIT's timeout; below the command bound). */
  waitMs: number;
}

/** No WAIT: what a single server, with no replica to wait for, runs (and tests over one). */
export const UNREPLICATED_CLAIMS: ClaimDurability = { replicas: 0, waitMs: 250 };

/** The host's single-use claims, bound once to their connection and settings (createSingleUseClaims). */
export interface SingleUseClaims {
  /** claimOnce on the bound connection: true when this call claimed `key`, false when it was claimed before. */
  claim(key: string, ttlSeconds: number): Promise<boolean>;
}

/**
 * The claims over `connection`. With replicas to wait for it must be a connection of the claims' own: WAIT blocks
 * the connection it is sent on until the replicas answer (up to REDIS_CLAIM_WAIT_MS), and every command queued
 * behind it on a shared, auto-pipelined connection (rate limits, caches, polls) would wait as long (the host core
 * opens one, libs/host/src/host-core.ts).
 */
export function createSingleUseClaims(connection: Redis, durability: ClaimDurability): SingleUseClaims {
  return { claim: (key, ttlSeconds) => claimOnce(connection, key, ttlSeconds, durability) };
}

/**
 * Fewer replicas than REDIS_CLAIM_REPLICAS acknowledged a claim in time: it is not honoured. A dependency failure
 * (isDependencyFailure): the answer is 503 with Retry-After.
 */
export class UnreplicatedClaimError extends Error {
  constructor(acknowledged: number, wanted: number) {
    super(`claim acknowledged by ${acknowledged} of ${wanted} replicas`);
    this.name = 'UnreplicatedClaimError';
  }
}

/**
 * Claims `key` for `ttlSeconds` (at least 1): true when this call made the claim and it is durable as configured,
 * false when the key was claimed before. Throws a dependency failure when Redis fails or too few replicas hold the
 * claim in time; such a claim is released again (best effort) so that the client may retry the same credential,
 * which was not used.
 *
 * The SET and the WAIT go in one pipeline: WAIT counts the replicas that have every write of its own connection, so
 * it must reach the node that took the SET. On a Cluster ioredis sends a pipeline to the master of its keys' slot
 * (WAIT has no key; scripts/engines/claim-cluster-routing.test.ts watches it on a real Cluster).
 */
export async function claimOnce(
  redis: Redis,
  key: string,
  ttlSeconds: number,
  durability: ClaimDurability,
): Promise<boolean> {
  const ex = Math.max(1, Math.ceil(ttlSeconds));
  if (durability.replicas === 0) return (await redis.set(key, '1', 'EX', ex, 'NX')) === 'OK';
  const replies = await redis
    .pipeline()
    .set(key, '1', 'EX', ex, 'NX')
    .wait(durability.replicas, durability.waitMs)
    .exec();
  const [set, wait] = replies ?? [];
  if (!set || set[0]) throw set?.[0] ?? new Error('Connection is closed');
  if (set[1] !== 'OK') return false;
  const acknowledged = wait && !wait[0] ? Number(wait[1]) : -1;
  if (acknowledged >= durability.replicas) return true;
  await redis.del(key).catch(() => undefined);
  throw wait?.[0] ?? new UnreplicatedClaimError(acknowledged, durability.replicas);
}
