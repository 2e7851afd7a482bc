// One OIDC client after registration (`oidc-client show|set|rotate-secret|delete`). The OIDC host reads clients
// through a cache of a couple of seconds (services/oidc store/clients.ts), so a change is seen by every replica
// within that. Delete marks the client REVOKED rather than removing its row: authorization codes and OIDC sessions
// refer to it, and the host already refuses an inactive client at /authorize, /token (so its refresh tokens stop)
// and revocation, and in CORS.
import type { Db } from '@svc/db';
import { ProvisioningError } from './errors';
import { checkRegistration, grantsOf, hashClientSecret, newClientSecret } from './oidc-clients';
import { readAnchors } from './store/listing';
import { changeActiveOidcClient, type OidcClientRow, readOidcClient } from './store/oidc-clients';

const CLIENT_ID = /^[A-Za-z0-9_-]{1,128}$/;

async function view(db: Db, row: OidcClientRow) {
  const anchors = await readAnchors(db, [row.applicationId]);
  const { applicationId, clientId, ...rest } = row;
  return { clientId, applicationAnchor: anchors.get(applicationId) ?? null, ...rest };
}

async function existing(db: Db, clientId: string): Promise<OidcClientRow> {
  const row = CLIENT_ID.test(clientId) ? await readOidcClient(db, clientId) : null;
  if (!row) throw new ProvisioningError('OIDC client not found (oidc-client list shows every client)');
  return row;
}

/** The change, applied only while the client is ACTIVE; a deleted client is refused with what happened to it. */
async function changeActive(
  db: Db,
  clientId: string,
  change: Parameters<typeof changeActiveOidcClient>[2],
): Promise<OidcClientRow> {
  const before = await existing(db, clientId);
  const after = before.status === 'ACTIVE' ? await changeActiveOidcClient(db, clientId, change) : undefined;
  if (!after) throw new ProvisioningError(`OIDC client ${clientId} is deleted; it cannot be changed`);
  return after;
}

/** Every setting of the client, never its secret or the secret's hash. */
export async function showOidcClient(db: Db, clientId: string) {
  return { client: await view(db, await existing(db, clientId)) };
}

/** A new secret, shown once; the old one stops authenticating as soon as the host's client cache turns over. */
export async function rotateOidcClientSecret(db: Db, clientId: string) {
  const clientSecret = newClientSecret();
  await changeActive(db, clientId, (current) => {
    if (current.authMethod === 'none') {
      throw new ProvisioningError(
        `OIDC client ${clientId} is public (auth method none) and has no secret to rotate`,
      );
    }
    return { secretHash: hashClientSecret(clientSecret) };
  });
  return { clientId, clientSecret };
}

/** Revokes the client for good: it can no longer sign anyone in, redeem a code or refresh. */
export async function deleteOidcClient(db: Db, clientId: string) {
  const after = await changeActive(db, clientId, () => ({ status: 'REVOKED', secretHash: null }));
  return { clientId, status: after.status };
}

/**
 * What `oidc-client set` changes: a given list replaces the registered one ([] clears it), an absent one is kept.
 * The result must be a registration `oidc-client create` would accept.
 */
export interface OidcClientSettings {
  redirectUris?: string[];
  postLogoutRedirectUris?: string[];
  responseTypes?: string[];
  grants?: string[];
  webOrigins?: string[];
}

export async function setOidcClient(db: Db, clientId: string, settings: OidcClientSettings) {
  const after = await changeActive(db, clientId, (current) => {
    const grants: string[] = settings.grants ? grantsOf(settings) : current.grantTypes;
    const redirectUris = settings.redirectUris ?? current.redirectUris;
    const responseTypes = settings.responseTypes ?? current.responseTypes;
    if (!grants.includes('authorization_code') && (redirectUris.length > 0 || responseTypes.length > 0)) {
      throw new ProvisioningError(
        'a client without --grant authorization_code has no redirect URIs or response types; add --clear redirect-uri --clear response-type',
      );
    }
    return checkRegistration({
      redirectUris,
      postLogoutRedirectUris: settings.postLogoutRedirectUris ?? current.postLogoutRedirectUris,
      responseTypes,
      grants,
      webOrigins: settings.webOrigins ?? current.webOrigins,
    });
  });
  return { client: await view(db, after) };
}
