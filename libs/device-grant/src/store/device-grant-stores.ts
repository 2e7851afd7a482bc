// Both stores of device authorizations bound over a host's connections: the rows in PostgreSQL, their polling state
// in Redis under the shared prefix. The device and OIDC hosts build them once in their deps.ts.
import type { Db } from '@svc/db';
import type { Redis } from 'ioredis';
import {
  type DeviceGrantSettings,
  KEEP_AFTER_EXPIRY_MS,
  SLOW_DOWN_CAP_SECONDS,
  SLOW_DOWN_STEP_SECONDS,
} from '../domain/config';
import type { DeviceGrantStores } from '../domain/ports';
import { createAuthorizationStore } from './authorizations';
import { createPollingStore } from './polling';

/** `commandTimeoutMs`: the host's REDIS_COMMAND_TIMEOUT_MS, past which a poll is given up (redis-deadline.ts). */
export function createDeviceGrantStores(
  db: Db,
  redis: Redis,
  s: DeviceGrantSettings,
  commandTimeoutMs: number,
): DeviceGrantStores {
  return {
    authorizations: createAuthorizationStore(db),
    polling: createPollingStore(redis, {
      prefix: s.redisPrefix,
      leewayMs: s.pollLeewayMs,
      stepSeconds: SLOW_DOWN_STEP_SECONDS,
      capSeconds: SLOW_DOWN_CAP_SECONDS,
      keepAfterExpiryMs: KEEP_AFTER_EXPIRY_MS,
      commandTimeoutMs,
    }),
  };
}
