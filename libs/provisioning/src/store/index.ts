// The provisioning stores, for wiring only: each factory binds one store to a connection and implements its port
// (domain/ports.ts); `createProvisioningPorts` binds them all. The admin tool binds them once in its context, tests
// in @svc/testkit's infrastructure, scripts and bench where they open their database; rules never import this
// module (`@svc/provisioning/stores`).
import type { AuditContext } from '@svc/audit';
import { type AuditScope, type ChainWaitBounds, createAuditedChanges } from '@svc/audit/stores';
import type { Db } from '@svc/db';
import { createOutboxStore, createSubscriptionsStore, resolveHost } from '@svc/events/stores';
import { createAccountsStore, createAgreementsStore, createSectorSubjectsStore } from '@svc/issuance/stores';
import { createSigningKeyStore, publishKeyChange } from '@svc/keyring';
import { type Clock, systemClock } from '@svc/platform';
import type { Redis } from 'ioredis';
import type { ProvisioningPorts } from '../domain/ports';
import { createInspectStore } from './inspect';
import { createListingStore } from './listing';
import { createOidcClientsStore } from './oidc-clients';
import { createOperatorKeysStore } from './operator-keys';
import { createPrincipalsStore } from './principals';
import { createRegistrationTokensStore } from './registration-tokens';
import { createSealedSecretsStore } from './sealed-secrets';
import { createSessionsStore } from './sessions';
import { createTenancyStore } from './tenancy';
import { createTermsStore } from './terms';

export {
  createInspectStore,
  createListingStore,
  createOidcClientsStore,
  createOperatorKeysStore,
  createPrincipalsStore,
  createRegistrationTokensStore,
  createSealedSecretsStore,
  createSessionsStore,
  createTenancyStore,
  createTermsStore,
};

/** What provisioning's ports are bound with. */
export interface ProvisioningBinding {
  /** Tells the hosts' key rings of key changes at once (after the change commits). */
  redis?: Redis;
  /** Who the changes are made by (the CLI's cliActor(), testkit's, a worker's); the audit rows name it. */
  actor: AuditContext;
  /** Stamps the audit rows (default: the system clock). */
  clock?: Clock;
  /** How changes wait for the audit chain (the process's AUDIT_CHAIN_WAIT_MS, AUDIT_WRITERS_PER_PROCESS). */
  chainWait?: ChainWaitBounds;
}

function storesOver(db: Db) {
  return {
    tenancy: createTenancyStore(db),
    operatorKeys: createOperatorKeysStore(db),
    signingKeys: createSigningKeyStore(db),
    principals: createPrincipalsStore(db),
    accounts: createAccountsStore(db),
    events: { subscriptions: createSubscriptionsStore(db), outbox: createOutboxStore(db), resolveHost },
    agreements: createAgreementsStore(db),
    oidcClients: createOidcClientsStore(db),
    registrationTokens: createRegistrationTokensStore(db),
    listing: createListingStore(db),
    inspect: createInspectStore(db),
    sessions: createSessionsStore(db),
    sectorSubjects: createSectorSubjectsStore(db),
    sealedSecrets: createSealedSecretsStore(db),
    terms: createTermsStore(db),
  };
}

/**
 * Provisioning's ports over an audited change's transaction `tx` (what `changes.run` hands its work; also for a host
 * that runs a whole request as one change, with ports of its own beside these): a nested `changes.run` joins `tx`,
 * and key changes are published once it has committed.
 */
export function provisioningPortsInChange(
  tx: Db,
  scope: Pick<AuditScope<unknown>, 'afterCommit' | 'joined'>,
  publish?: (scopeId: string) => Promise<void>,
): ProvisioningPorts {
  const inTx: ProvisioningPorts = {
    ...storesOver(tx),
    keyChanges: publish
      ? { publish: async (scopeId) => scope.afterCommit(() => publish(scopeId)) }
      : undefined,
    changes: scope.joined(() => inTx),
  };
  return inTx;
}

/**
 * Every provisioning store over one database, acting for `actor`. With `redis`, key rotations and revocations also
 * tell the hosts' key rings (keyChanges, sent once the change has committed); without it the caller announces
 * changes itself, as the admin tool does. `changes.run` binds the same stores to one transaction per change.
 */
export function createProvisioningPorts(db: Db, opts: ProvisioningBinding): ProvisioningPorts {
  const { redis } = opts;
  const publish = redis ? (scopeId: string) => publishKeyChange(redis, scopeId) : undefined;
  const changes = createAuditedChanges<ProvisioningPorts>(db, {
    context: opts.actor,
    clock: opts.clock ?? systemClock,
    chainWait: opts.chainWait,
    bind: (tx, scope) => provisioningPortsInChange(tx, scope, publish),
  });
  return { ...storesOver(db), keyChanges: publish ? { publish } : undefined, changes };
}
