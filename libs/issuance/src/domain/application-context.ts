// An application with its sector, organization and rules, the unit every issuance check reads, and the in-process
// cache hot paths read it through (the applications port loads it).
import { type Clock, createTtlCache, isStorableText } from '@svc/platform';
import type { ClaimRequirements } from '@svc/token-core';
import type { ApplicationsPort } from './ports';

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

/**
 * A small in-process cache so hot paths (refresh, introspect) do not reload the application on every request.
 * `ttlMs`: the host's APP_CACHE_TTL_MS (0 in tests, whose fixtures change between requests), by the host's clock.
 */
export function createApplicationCache(applications: ApplicationsPort, ttlMs: number, clock: Clock) {
  const byAnchor = createTtlCache<string, ApplicationContext | undefined>({ ttlMs, clock, max: 10_000 });
  const load = (anchor: string) => applications.loadApplication({ anchor });
  return {
    get(anchor: string): Promise<ApplicationContext | undefined> {
      // An anchor from an untrusted token (`aud`) that no application could have is unknown, not a query.
      if (anchor.length > 64 || !isStorableText(anchor)) return Promise.resolve(undefined);
      return byAnchor.get(anchor, load);
    },
    clear() {
      byAnchor.clear();
    },
  };
}
export type ApplicationCache = ReturnType<typeof createApplicationCache>;
