// Registered OIDC clients, read by client_id with a short in-process cache (the token endpoint reads one per
// request); a revoked or changed client is seen by every replica within the cache lifetime.
import type { Db } from '@svc/db';
import { type Clock, createTtlCache, isStorableText } from '@svc/platform';
import type { ClientAuthMethod, ClientStore, OidcClient } from '../domain/ports';

const CLIENT_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** `ttlMs`: how long a read client is reused, by the host's clock. */
export function createClientStore(db: Db, clock: Clock, ttlMs = 2000): ClientStore {
  const cache = createTtlCache<string, OidcClient | undefined>({ ttlMs, clock, max: 10_000 });
  const origins = createTtlCache<string, boolean>({ ttlMs, clock, max: 10_000 });
  const originRegistered = async (origin: string): Promise<boolean> => {
    const row = await db.oidcClient.findFirst({
      where: { status: 'ACTIVE', webOrigins: { has: origin } },
      select: { id: true },
    });
    return row !== null;
  };
  async function load(clientId: string): Promise<OidcClient | undefined> {
    const row = await db.oidcClient.findUnique({ where: { clientId } });
    if (!row) return undefined;
    const app = await db.application.findUnique({
      where: { id: row.applicationId },
      select: { anchor: true },
    });
    if (!app) return undefined;
    return {
      id: row.id,
      clientId: row.clientId,
      secretHash: row.secretHash,
      authMethod: row.authMethod as ClientAuthMethod,
      applicationId: row.applicationId,
      applicationAnchor: app.anchor,
      redirectUris: row.redirectUris,
      postLogoutRedirectUris: row.postLogoutRedirectUris,
      responseTypes: row.responseTypes,
      grantTypes: row.grantTypes,
      webOrigins: row.webOrigins,
      requirePar: row.requirePar,
      active: row.status === 'ACTIVE',
    };
  }
  return {
    get(clientId) {
      if (!CLIENT_ID.test(clientId) || !isStorableText(clientId)) return Promise.resolve(undefined);
      return cache.get(clientId, load);
    },
    originRegistered(origin) {
      if (!isStorableText(origin)) return Promise.resolve(false);
      return origins.get(origin, originRegistered);
    },
    clear() {
      cache.clear();
      origins.clear();
    },
  };
}
