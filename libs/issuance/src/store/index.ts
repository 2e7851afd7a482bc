// The issuance stores, for wiring only: each factory binds one store to a connection and implements its port
// (domain/ports.ts); `createIssuancePorts` binds them all. Hosts build them once in @svc/host (host-core), tests in
// @svc/testkit; rules never import this module (`@svc/issuance/stores`).
import type { Db } from '@svc/db';
import type { Redis } from 'ioredis';
import type { IssuancePorts } from '../domain/ports';
import { createAccountsStore } from './accounts';
import { createAgreementsStore } from './agreements';
import { createApplicationsStore } from './applications';
import { createCredentialReadsStore } from './credential-reads';
import { createErrandsStore } from './errands';
import { createIssuanceReadsStore } from './issuance-reads';
import { createSectorSubjectsStore } from './sector-subjects';
import { createSessionEventsStore } from './session-events';
import { createSessionStatesStore } from './session-states';
import { createSessionsStore } from './sessions';
import { createUnansweredRotationsStore } from './unanswered-rotations';
import { createUserinfoReadsStore } from './userinfo-reads';

export {
  createAccountsStore,
  createAgreementsStore,
  createApplicationsStore,
  createCredentialReadsStore,
  createErrandsStore,
  createIssuanceReadsStore,
  createSectorSubjectsStore,
  createSessionEventsStore,
  createSessionStatesStore,
  createSessionsStore,
  createUnansweredRotationsStore,
  createUserinfoReadsStore,
};

/** Every issuance store over the host's database and its command Redis connection. */
export function createIssuancePorts(db: Db, redis: Redis): IssuancePorts {
  return {
    accounts: createAccountsStore(db),
    agreements: createAgreementsStore(db),
    applications: createApplicationsStore(db),
    errands: createErrandsStore(db),
    issuanceReads: createIssuanceReadsStore(db),
    sectorSubjects: createSectorSubjectsStore(db),
    sessions: createSessionsStore(db),
    sessionEvents: createSessionEventsStore(redis),
    unansweredRotations: createUnansweredRotationsStore(redis),
  };
}
