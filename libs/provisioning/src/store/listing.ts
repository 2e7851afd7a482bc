// Store reads behind the admin CLI's list commands: rows oldest first, never a secret or its hash.
import type { Db } from '@svc/db';
import { CLIENT_VIEW } from './oidc-clients';

const OLDEST_FIRST = { createdAt: 'asc' as const };

export function readOrganizations(db: Db) {
  return db.organization.findMany({
    orderBy: OLDEST_FIRST,
    select: { id: true, name: true, status: true, createdAt: true },
  });
}

export function readSectors(db: Db, organizationId: string | undefined) {
  return db.sector.findMany({
    where: organizationId ? { organizationId } : {},
    orderBy: OLDEST_FIRST,
    select: { id: true, organizationId: true, name: true, status: true, createdAt: true },
  });
}

export function readApplications(db: Db, sectorId: string | undefined) {
  return db.application.findMany({
    where: sectorId ? { sectorId } : {},
    orderBy: OLDEST_FIRST,
    select: { anchor: true, status: true, sectorId: true, names: true, createdAt: true },
  });
}

/** Every column but the secret hash, the same view as `oidc-client show`. */
export function readOidcClients(db: Db, applicationId: string | undefined) {
  return db.oidcClient.findMany({
    where: applicationId ? { applicationId } : {},
    orderBy: OLDEST_FIRST,
    select: CLIENT_VIEW,
  });
}

/** Anchors of the given application ids (to name each OIDC client's application). */
export async function readAnchors(db: Db, ids: string[]): Promise<Map<string, string>> {
  const rows = await db.application.findMany({
    where: { id: { in: ids } },
    select: { id: true, anchor: true },
  });
  return new Map(rows.map((r) => [r.id, r.anchor]));
}
