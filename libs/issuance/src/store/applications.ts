// Store of applications: one application with its sector, organization and enabled rules, by anchor or id.
import type { Db } from '@svc/db';
import { normalizeRequirements } from '@svc/token-core';
import type { ApplicationContext } from '../domain/application-context';
import type { ApplicationsPort } from '../domain/ports';

async function loadApplication(
  db: Db,
  by: { anchor: string } | { id: string },
): Promise<ApplicationContext | undefined> {
  const row = await db.application.findUnique({
    where: 'anchor' in by ? { anchor: by.anchor } : { id: by.id },
    include: {
      sector: { include: { organization: true } },
      authRules: { where: { enabled: true } },
      returnRules: { where: { enabled: true } },
    },
  });
  if (!row) return undefined;
  return {
    id: row.id,
    anchor: row.anchor,
    sectorId: row.sectorId,
    status: row.status,
    sectorActive: row.sector.status === 'ACTIVE',
    organizationActive: row.sector.organization.status === 'ACTIVE',
    names: (row.names ?? {}) as Record<string, string>,
    defaultLocale: row.defaultLocale,
    callbackDomains: row.callbackDomains,
    claimRequirements: normalizeRequirements(row.claimRequirements),
    authRules: row.authRules.map((r) => ({
      id: r.id,
      method: r.method,
      platformAppIds: r.platformAppIds,
      accessTtl: r.accessTtl,
      refreshTtl: r.refreshTtl,
    })),
    returnRules: row.returnRules.map((r) => ({ id: r.id, method: r.method })),
  };
}

export function createApplicationsStore(db: Db): ApplicationsPort {
  return { loadApplication: (by) => loadApplication(db, by) };
}
