// Read-only lists for operators (`org list`, `sector list`, `app list`, `oidc-client list`): what exists, oldest
// first; an unknown filter is an error rather than an empty list, so a typo is not mistaken for "nothing there".
import type { Db } from '@svc/db';
import { appByAnchor, uuidOrThrow } from './domain/tenancy';
import { ProvisioningError } from './errors';
import {
  readAnchors,
  readApplications,
  readOidcClients,
  readOrganizations,
  readSectors,
} from './store/listing';
import { createTenancyStore } from './store/tenancy';

export async function listOrgs(db: Db) {
  return { organizations: await readOrganizations(db) };
}

export async function listSectors(db: Db, orgId?: string) {
  if (orgId && !(await createTenancyStore(db).organizationExists(uuidOrThrow(orgId, 'organization'))))
    throw new ProvisioningError('organization not found');
  return { sectors: await readSectors(db, orgId) };
}

export async function listApps(db: Db, sectorId?: string) {
  if (sectorId && !(await createTenancyStore(db).sectorExists(uuidOrThrow(sectorId, 'sector'))))
    throw new ProvisioningError('sector not found');
  const rows = await readApplications(db, sectorId);
  return {
    applications: rows.map(({ anchor, ...rest }) => ({ applicationAnchor: anchor, ...rest })),
  };
}

/** Never the secret nor its hash (authMethod says whether the client has one). */
export async function listOidcClients(db: Db, anchor?: string) {
  const app = anchor ? await appByAnchor({ tenancy: createTenancyStore(db) }, anchor) : undefined;
  const rows = await readOidcClients(db, app?.id);
  const anchors = await readAnchors(db, [...new Set(rows.map((r) => r.applicationId))]);
  return {
    clients: rows.map(({ applicationId, clientId, ...c }) => ({
      clientId,
      applicationAnchor: anchors.get(applicationId),
      ...c,
    })),
  };
}
