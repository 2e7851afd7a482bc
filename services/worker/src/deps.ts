// The worker's ports, bound once over its connections (the only worker file besides store/ and the process entry
// that holds the database and Redis handles): the jobs take these, never a handle.
import { workerActor } from '@svc/audit';
import { type ChainWaitBounds, createAuditedChanges, createAuditTrailStore } from '@svc/audit/stores';
import type { Db } from '@svc/db';
import { createSessionEventsStore } from '@svc/issuance/stores';
import { dueApplicationScopes, OIDC_SCOPE, publishKeyChange, runScheduledRotation } from '@svc/keyring';
import { type Clock, systemClock } from '@svc/platform';
import type { Kek } from '@svc/token-core';
import type { Redis } from 'ioredis';
import type { WorkerPorts, WorkerTxPorts } from './jobs/ports';
import { createSweepStore } from './store/sweep-store';

/** The audit target of a key scope: the application by anchor (as the CLI names it), or the OIDC key set. */
async function targetOf(db: Db, scopeId: string): Promise<{ type: string; id: string }> {
  if (scopeId === OIDC_SCOPE) return { type: 'oidc_key_set', id: 'oidc' };
  const app = await db.application.findUnique({ where: { id: scopeId }, select: { anchor: true } });
  return { type: 'application', id: app?.anchor ?? scopeId };
}

function txPorts(db: Db, kek: Kek): WorkerTxPorts {
  return {
    sweeps: createSweepStore(db),
    keys: {
      runScheduledRotation: (scopeId, schedule, at) => runScheduledRotation(db, kek, scopeId, schedule, at),
      targetOf: (scopeId) => targetOf(db, scopeId),
    },
  };
}

export function createWorkerPorts(c: {
  db: Db;
  redis: Redis;
  kek: Kek;
  clock?: Clock;
  /** The worker's AUDIT_CHAIN_WAIT_MS and AUDIT_WRITERS_PER_PROCESS. */
  chainWait?: ChainWaitBounds;
}): WorkerPorts {
  const inTx = txPorts(c.db, c.kek);
  return {
    sweeps: inTx.sweeps,
    sessionEvents: createSessionEventsStore(c.redis),
    keys: {
      ...inTx.keys,
      dueApplicationScopes: (schedule, at, page) => dueApplicationScopes(c.db, schedule, at, page),
      publishKeyChange: (scopeId) => publishKeyChange(c.redis, scopeId),
    },
    changes: createAuditedChanges(c.db, {
      context: workerActor('worker'),
      clock: c.clock ?? systemClock,
      chainWait: c.chainWait,
      bind: (tx) => txPorts(tx, c.kek),
    }),
    auditTrail: createAuditTrailStore(c.db, c.chainWait),
  };
}
