// Pushed authorization requests (RFC 9126) in Redis, shared by every replica: a request pushed at /par waits under
// the SHA-256 of its client and request_uri, so a request_uri presented by another client finds nothing; /authorize
// takes it once through the host's single-use claims (claimOnce: a SET NX, with WAIT when the operator runs Redis
// replicas, so that a failover cannot let it be used twice), then deletes it.
import { createHash } from 'node:crypto';
import { type Clock, type SingleUseClaims, slotTag } from '@svc/platform';
import type { Redis } from 'ioredis';
import type { PushedRequest, PushedRequestStore, PushedTake } from '../domain/ports';

/** Redis keeps a record this long past the host clock's expiry (the clock decides; Redis frees the memory). */
const SLACK_SECONDS = 30;

/** `redisPrefix`: OIDC_REDIS_PREFIX; records live under `<redisPrefix>:par:`, their claims under `<redisPrefix>:par-used:`. */
export function createPushedRequestStore(
  redis: Redis,
  claims: SingleUseClaims,
  opts: { redisPrefix: string; clock: Clock },
): PushedRequestStore {
  const digest = (clientId: string, requestUri: string) =>
    slotTag(redis, createHash('sha256').update(`${clientId}\n${requestUri}`).digest('hex'));
  return {
    async push(clientId, requestUri, request, ttlSeconds) {
      const key = `${opts.redisPrefix}:par:${digest(clientId, requestUri)}`;
      await redis.set(key, JSON.stringify(request), 'EX', ttlSeconds + SLACK_SECONDS);
    },
    async take(clientId, requestUri): Promise<PushedTake> {
      const hash = digest(clientId, requestUri);
      const key = `${opts.redisPrefix}:par:${hash}`;
      const raw = await redis.get(key);
      if (raw === null) return { kind: 'unknown' };
      const request = JSON.parse(raw) as PushedRequest;
      if (request.expiresAt <= opts.clock()) return { kind: 'expired' };
      const ttl = Math.ceil((request.expiresAt - opts.clock()) / 1000) + SLACK_SECONDS;
      if (!(await claims.claim(`${opts.redisPrefix}:par-used:${hash}`, ttl))) return { kind: 'used' };
      await redis.del(key);
      return { kind: 'taken', request };
    },
  };
}
