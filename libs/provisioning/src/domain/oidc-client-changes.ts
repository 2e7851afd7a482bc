// One OIDC client after registration (`oidc-client show|set|rotate-secret|delete`). The OIDC host reads clients
// through a cache of a couple of seconds (services/oidc store/clients.ts), so a change is seen by every replica
// within that. Delete marks the client REVOKED rather than removing its row: authorization codes and OIDC sessions
// refer to it, and the host already refuses an inactive client at /authorize, /token (so its refresh tokens stop)
// and revocation, and in CORS.
import { type AuditChanges, changed, secretChanged } from '@svc/audit';
import type { TargetPolicy } from '@svc/events';
import { ProvisioningError } from '../errors';
import {
  checkBackchannelLogoutUri,
  checkRegistration,
  grantsOf,
  hashClientSecret,
  newClientSecret,
} from './oidc-clients';
import type { OidcClientChange, OidcClientRecord, Uses } from './ports';

const CLIENT_ID = /^[A-Za-z0-9_-]{1,128}$/;

async function view(ports: Uses<'listing'>, row: OidcClientRecord) {
  const anchors = await ports.listing.anchors([row.applicationId]);
  const { applicationId, clientId, ...rest } = row;
  return { clientId, applicationAnchor: anchors.get(applicationId) ?? null, ...rest };
}

async function existing(ports: Uses<'oidcClients'>, clientId: string): Promise<OidcClientRecord> {
  const row = CLIENT_ID.test(clientId) ? await ports.oidcClients.read(clientId) : null;
  if (!row) throw new ProvisioningError('OIDC client not found (oidc-client list shows every client)');
  return row;
}

/** The change, applied only while the client is ACTIVE; a deleted client is refused with what happened to it. */
async function changeActive(
  ports: Uses<'oidcClients'>,
  clientId: string,
  change: (current: OidcClientRecord) => OidcClientChange,
): Promise<OidcClientRecord> {
  const before = await existing(ports, clientId);
  const after =
    before.status === 'ACTIVE' ? await ports.oidcClients.changeActive(clientId, change) : undefined;
  if (!after) throw new ProvisioningError(`OIDC client ${clientId} is deleted; it cannot be changed`);
  return after;
}

/** Every setting of the client, never its secret or the secret's hash. */
export async function showOidcClient(ports: Uses<'oidcClients' | 'listing'>, clientId: string) {
  return { client: await view(ports, await existing(ports, clientId)) };
}

/** A new secret, shown once; the old one stops authenticating as soon as the host's client cache turns over. */
export async function rotateOidcClientSecret(ports: Uses<'changes'>, clientId: string) {
  const clientSecret = newClientSecret();
  return ports.changes.run(async (tx, audit) => {
    await changeActive(tx, clientId, (current) => {
      if (current.authMethod === 'none') {
        throw new ProvisioningError(
          `OIDC client ${clientId} is public (auth method none) and has no secret to rotate`,
        );
      }
      return { secretHash: hashClientSecret(clientSecret) };
    });
    audit.record({
      action: 'oidc_client.rotate_secret',
      target: { type: 'oidc_client', id: clientId },
      changes: { secret: secretChanged(true, true) },
    });
    return { clientId, clientSecret };
  });
}

/** Revokes the client for good: it can no longer sign anyone in, redeem a code or refresh. */
export async function deleteOidcClient(ports: Uses<'changes'>, clientId: string) {
  return ports.changes.run(async (tx, audit) => {
    const after = await changeActive(tx, clientId, () => ({ status: 'REVOKED', secretHash: null }));
    audit.record({
      action: 'oidc_client.delete',
      target: { type: 'oidc_client', id: clientId },
      changes: { status: changed('ACTIVE', after.status), secret: secretChanged(true, false) },
    });
    return { clientId, status: after.status };
  });
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
  requirePar?: boolean;
  requireDpop?: boolean;
  /** OIDC Back-Channel Logout 1.0: a URI replaces the registered one, null clears it. */
  backchannelLogoutUri?: string | null;
}

export async function setOidcClient(
  ports: Uses<'changes' | 'events'>,
  clientId: string,
  settings: OidcClientSettings,
  policy?: TargetPolicy,
) {
  await checkBackchannelLogoutUri(ports, settings.backchannelLogoutUri, policy);
  return ports.changes.run(async (tx, audit) => {
    let before: OidcClientRecord | undefined;
    const after = await changeActive(tx, clientId, (current) => {
      before = current;
      return settingsChange(current, settings);
    });
    const moved: AuditChanges = {};
    for (const field of SETTINGS) {
      const from = before?.[field];
      if (JSON.stringify(from) !== JSON.stringify(after[field])) moved[field] = changed(from, after[field]);
    }
    audit.record({
      action: 'oidc_client.set',
      target: { type: 'oidc_client', id: clientId },
      changes: moved,
    });
    return { client: await view(tx, after) };
  });
}

const SETTINGS = [
  'redirectUris',
  'postLogoutRedirectUris',
  'responseTypes',
  'grantTypes',
  'webOrigins',
  'requirePar',
  'requireDpop',
  'backchannelLogoutUri',
] as const;

function settingsChange(current: OidcClientRecord, settings: OidcClientSettings): OidcClientChange {
  const grants: string[] = settings.grants ? grantsOf(settings) : current.grantTypes;
  const redirectUris = settings.redirectUris ?? current.redirectUris;
  const responseTypes = settings.responseTypes ?? current.responseTypes;
  if (!grants.includes('authorization_code') && (redirectUris.length > 0 || responseTypes.length > 0)) {
    throw new ProvisioningError(
      'a client without --grant authorization_code has no redirect URIs or response types; add --clear redirect-uri --clear response-type',
    );
  }
  return checkRegistration(
    {
      redirectUris,
      postLogoutRedirectUris: settings.postLogoutRedirectUris ?? current.postLogoutRedirectUris,
      responseTypes,
      grants,
      webOrigins: settings.webOrigins ?? current.webOrigins,
      requirePar: settings.requirePar ?? current.requirePar,
      requireDpop: settings.requireDpop ?? current.requireDpop,
      backchannelLogoutUri:
        settings.backchannelLogoutUri === undefined
          ? current.backchannelLogoutUri
          : settings.backchannelLogoutUri,
    },
    current.authMethod,
  );
}
