// The worker's ports, bound once over its connections (the only worker file besides store/ and the process entry
// that holds the database and Redis handles): the jobs take these, never a handle.
import type { Db } from '@svc/db';
import { createSessionEventsStore } from '@svc/issuance/stores';
import { dueApplicationScopes, publishKeyChange, runScheduledRotation } from '@svc/keyring';
import type { Kek } from '@svc/token-core';
import type { Redis } from 'ioredis';
import type { WorkerPorts } from './jobs/ports';
import { createSweepStore } from './store/sweep-store';

export function createWorkerPorts(c: { db: Db; redis: Redis; kek: Kek }): WorkerPorts {
  return {
    sweeps: createSweepStore(c.db),
    sessionEvents: createSessionEventsStore(c.redis),
    keys: {
      runScheduledRotation: (scopeId, schedule, at) =>
        runScheduledRotation(c.db, c.kek, scopeId, schedule, at),
      dueApplicationScopes: (schedule, at, page) => dueApplicationScopes(c.db, schedule, at, page),
      publishKeyChange: (scopeId) => publishKeyChange(c.redis, scopeId),
    },
  };
}
