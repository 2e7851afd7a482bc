// Read-only lists for operators (`org list`, `sector list`, `app list`, `oidc-client list`): what exists, oldest
// first; an unknown filter is an error rather than an empty list, so a typo is not mistaken for "nothing there".
import { ProvisioningError } from '../errors';
import type { Uses } from './ports';
import { appByAnchor, uuidOrThrow } from './tenancy';

export async function listOrgs(ports: Uses<'listing'>) {
  return { organizations: await ports.listing.organizations() };
}

export async function listSectors(ports: Uses<'listing' | 'tenancy'>, orgId?: string) {
  if (orgId && !(await ports.tenancy.organizationExists(uuidOrThrow(orgId, 'organization'))))
    throw new ProvisioningError('organization not found');
  return { sectors: await ports.listing.sectors(orgId) };
}

export async function listApps(ports: Uses<'listing' | 'tenancy'>, sectorId?: string) {
  if (sectorId && !(await ports.tenancy.sectorExists(uuidOrThrow(sectorId, 'sector'))))
    throw new ProvisioningError('sector not found');
  const rows = await ports.listing.applications(sectorId);
  return {
    applications: rows.map(({ anchor, ...rest }) => ({ applicationAnchor: anchor, ...rest })),
  };
}

/** Never the secret nor its hash (authMethod says whether the client has one). */
export async function listOidcClients(ports: Uses<'listing' | 'tenancy'>, anchor?: string) {
  const app = anchor ? await appByAnchor(ports, anchor) : undefined;
  const rows = await ports.listing.oidcClients(app?.id);
  const anchors = await ports.listing.anchors([...new Set(rows.map((r) => r.applicationId))]);
  return {
    clients: rows.map(({ applicationId, clientId, ...c }) => ({
      clientId,
      applicationAnchor: anchors.get(applicationId),
      ...c,
    })),
  };
}
