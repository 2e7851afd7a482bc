// Registered OIDC clients, read by client_id with a short in-process cache (the token endpoint reads one per
// request); a revoked or changed client is seen by every replica within the cache lifetime.
import { type Db, runPrepared, type Statement } from '@svc/db';
import { type Clock, createTtlCache, isStorableText } from '@svc/platform';
import type { ClientStore, OidcClient } from '../domain/ports';

const CLIENT_ID = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * The client and its application's anchor in one statement, whether the client exists or not: a known client read
 * from PostgreSQL costs what an unknown one does (one round trip, no second read for a hit), so the time of an
 * invalid_client answer tells nothing about which client ids exist. The columns are named as OidcClient's fields.
 */
const CLIENT_BY_ID: Statement = {
  name: 'oidc_client_by_id_v2',
  text: `SELECT c.id, c.client_id AS "clientId", c.secret_hash AS "secretHash", c.auth_method AS "authMethod",
      c.application_id AS "applicationId", a.anchor AS "applicationAnchor", c.redirect_uris AS "redirectUris",
      c.post_logout_redirect_uris AS "postLogoutRedirectUris", c.response_types AS "responseTypes",
      c.grant_types AS "grantTypes", c.web_origins AS "webOrigins", c.require_par AS "requirePar",
      c.require_dpop AS "requireDpop", c.status = 'ACTIVE' AS active
    FROM oidc_clients c JOIN applications a ON a.id = c.application_id
    WHERE c.client_id = $1::text`,
};

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
    const [row] = await runPrepared<OidcClient>(db, CLIENT_BY_ID, [clientId]);
    return row;
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
