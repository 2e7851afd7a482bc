// Store reads behind the admin CLI's list commands: rows oldest first, never a secret or its hash.
import type { Db } from '@svc/db';
import type { ListingStore } from '../domain/ports';
import { CLIENT_VIEW } from './oidc-clients';

const OLDEST_FIRST = { createdAt: 'asc' as const };

export function createListingStore(db: Db): ListingStore {
  return {
    organizations() {
      return db.organization.findMany({
        orderBy: OLDEST_FIRST,
        select: { id: true, name: true, status: true, createdAt: true },
      });
    },
    sectors(organizationId) {
      return db.sector.findMany({
        where: organizationId ? { organizationId } : {},
        orderBy: OLDEST_FIRST,
        select: { id: true, organizationId: true, name: true, status: true, createdAt: true },
      });
    },
    applications(sectorId) {
      return db.application.findMany({
        where: sectorId ? { sectorId } : {},
        orderBy: OLDEST_FIRST,
        select: { anchor: true, status: true, sectorId: true, names: true, createdAt: true },
      });
    },
    /** Every column but the secret hash, the same view as `oidc-client show`. */
    oidcClients(applicationId) {
      return db.oidcClient.findMany({
        where: applicationId ? { applicationId } : {},
        orderBy: OLDEST_FIRST,
        select: CLIENT_VIEW,
      });
    },
    async anchors(ids) {
      const rows = await db.application.findMany({
        where: { id: { in: ids } },
        select: { id: true, anchor: true },
      });
      return new Map(rows.map((r) => [r.id, r.anchor]));
    },
  };
}
