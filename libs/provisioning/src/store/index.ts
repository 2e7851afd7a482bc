// The provisioning stores, for wiring only: each factory binds one store to a connection and implements its port
// (domain/ports.ts); `createProvisioningPorts` binds them all. The admin tool binds them once in its context, tests
// in @svc/testkit's infrastructure, scripts and bench where they open their database; rules never import this
// module (`@svc/provisioning/stores`).
import type { Db } from '@svc/db';
import { createAccountsStore, createAgreementsStore, createSectorSubjectsStore } from '@svc/issuance/stores';
import { createSigningKeyStore, publishKeyChange } from '@svc/keyring';
import type { Redis } from 'ioredis';
import type { ProvisioningPorts } from '../domain/ports';
import { createInspectStore } from './inspect';
import { createListingStore } from './listing';
import { createOidcClientsStore } from './oidc-clients';
import { createPrincipalsStore } from './principals';
import { createSealedSecretsStore } from './sealed-secrets';
import { createSessionsStore } from './sessions';
import { createTenancyStore } from './tenancy';
import { createTermsStore } from './terms';

export {
  createInspectStore,
  createListingStore,
  createOidcClientsStore,
  createPrincipalsStore,
  createSealedSecretsStore,
  createSessionsStore,
  createTenancyStore,
  createTermsStore,
};

/**
 * Every provisioning store over one database. With `redis`, key rotations and revocations also tell the hosts'
 * key rings at once (keyChanges); without it the caller announces changes itself, as the admin tool does.
 */
export function createProvisioningPorts(db: Db, opts: { redis?: Redis } = {}): ProvisioningPorts {
  const { redis } = opts;
  return {
    tenancy: createTenancyStore(db),
    signingKeys: createSigningKeyStore(db),
    principals: createPrincipalsStore(db),
    accounts: createAccountsStore(db),
    agreements: createAgreementsStore(db),
    oidcClients: createOidcClientsStore(db),
    listing: createListingStore(db),
    inspect: createInspectStore(db),
    sessions: createSessionsStore(db),
    sectorSubjects: createSectorSubjectsStore(db),
    sealedSecrets: createSealedSecretsStore(db),
    terms: createTermsStore(db),
    keyChanges: redis ? { publish: (scopeId) => publishKeyChange(redis, scopeId) } : undefined,
  };
}
