// Loads an application with its sector, organization and rules, the unit every issuance check reads.
import type { Db } from '@svc/db';
import { isStorableText } from '@svc/platform';
import { type ClaimRequirements, normalizeRequirements } from '@svc/token-core';

export interface ApplicationContext {
  id: string;
  anchor: string;
  sectorId: string;
  status: 'ACTIVE' | 'SUSPENDED' | 'DISABLED';
  sectorActive: boolean;
  organizationActive: boolean;
  names: Record<string, string>;
  defaultLocale: string;
  callbackDomains: string[];
  claimRequirements: ClaimRequirements;
  authRules: {
    id: string;
    method: string;
    platformAppIds: bigint[];
    accessTtl: number | null;
    refreshTtl: number | null;
  }[];
  returnRules: { id: string; method: string }[];
}

/** True when the application, its sector and its organization are all available for issuance. */
export function isIssuable(app: ApplicationContext): boolean {
  return app.status === 'ACTIVE' && app.sectorActive && app.organizationActive;
}

export async function loadApplication(
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

/** A small in-process cache so hot paths (refresh, introspect) do not reload the application on every request. */
export function createApplicationCache(db: Db, ttlMs = Number(process.env.APP_CACHE_TTL_MS ?? 2000)) {
  const byAnchor = new Map<string, { at: number; value: Promise<ApplicationContext | undefined> }>();
  return {
    get(anchor: string): Promise<ApplicationContext | undefined> {
      // An anchor from an untrusted token (`aud`) that no application could have is unknown, not a query.
      if (anchor.length > 64 || !isStorableText(anchor)) return Promise.resolve(undefined);
      const hit = byAnchor.get(anchor);
      if (hit && Date.now() - hit.at < ttlMs) return hit.value;
      const value = loadApplication(db, { anchor });
      byAnchor.set(anchor, { at: Date.now(), value });
      value.catch(() => byAnchor.delete(anchor));
      if (byAnchor.size > 10_000) byAnchor.delete(byAnchor.keys().next().value as string);
      return value;
    },
    clear() {
      byAnchor.clear();
    },
  };
}
export type ApplicationCache = ReturnType<typeof createApplicationCache>;
