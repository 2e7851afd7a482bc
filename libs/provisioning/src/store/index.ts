// The provisioning stores, for wiring only: each factory binds one store to a connection and implements its port
// (domain/ports.ts); `createProvisioningPorts` binds them all. The admin tool binds them once in its context, tests
// in @svc/testkit's infrastructure, scripts and bench where they open their database; rules never import this
// module (`@svc/provisioning/stores`).
import type { Db } from '@svc/db';
import { createAccountsStore, createAgreementsStore } from '@svc/issuance/stores';
import { createSigningKeyStore } from '@svc/keyring';
import type { ProvisioningPorts } from '../domain/ports';
import { createInspectStore } from './inspect';
import { createListingStore } from './listing';
import { createOidcClientsStore } from './oidc-clients';
import { createPrincipalsStore } from './principals';
import { createTenancyStore } from './tenancy';

export {
  createInspectStore,
  createListingStore,
  createOidcClientsStore,
  createPrincipalsStore,
  createTenancyStore,
};

/** Every provisioning store over one database. */
export function createProvisioningPorts(db: Db): ProvisioningPorts {
  return {
    tenancy: createTenancyStore(db),
    signingKeys: createSigningKeyStore(db),
    principals: createPrincipalsStore(db),
    accounts: createAccountsStore(db),
    agreements: createAgreementsStore(db),
    oidcClients: createOidcClientsStore(db),
    listing: createListingStore(db),
    inspect: createInspectStore(db),
  };
}
