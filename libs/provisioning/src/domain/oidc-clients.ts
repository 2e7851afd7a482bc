// OpenID Connect clients (`oidc-client create`): one or more per application, each with its exact redirect URIs,
// post-logout redirect URIs, registered response types, grants, web origins (CORS) and token-endpoint
// authentication method. The secret is a 256-bit random value shown once; only its SHA-256 is stored.
import { createHash, randomBytes } from 'node:crypto';
import { created, secretChanged } from '@svc/audit';
import { checkTarget, EventsError, type TargetPolicy } from '@svc/events';
import { isHttpsOrLoopback } from '@svc/platform';
import { OIDC_RESPONSE_TYPES, parseResponseType } from '@svc/token-core';
import { ProvisioningError } from '../errors';
import type { Uses } from './ports';
import { appByAnchor } from './tenancy';

export const OIDC_AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'none'] as const;
export type OidcAuthMethod = (typeof OIDC_AUTH_METHODS)[number];

/** Grants a client opts into (`--grant`); refresh_token comes with either. */
export const OIDC_GRANTS = ['authorization_code', 'device_code'] as const;
export type OidcGrant = (typeof OIDC_GRANTS)[number];

/**
 * RFC 9700 2.1.2: the implicit grant and the hybrid types put tokens in the front channel (browser history,
 * referrers, logs) with no sender binding, so a client gets `code` alone unless it registers more.
 */
export const DEFAULT_RESPONSE_TYPES = ['code'] as const;

const URI_MAX_BYTES = 2048;

/** SHA-256 hex of a client secret: how it is stored and compared. */
export function hashClientSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/**
 * A redirect URI a client may register: absolute, HTTPS (HTTP only on a loopback host, for local development),
 * no fragment (OAuth 2.0 section 3.1.2), no credentials, at most 2048 bytes. It is matched exactly, never by prefix.
 */
export function checkRedirectUri(uri: string, flag: string, field = 'redirectUris'): string {
  const refuse = (message: string) => new ProvisioningError(message, { field });
  if (Buffer.byteLength(uri, 'utf8') > URI_MAX_BYTES) throw refuse(`${flag} is longer than 2048 bytes`);
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw refuse(`${flag} must be an absolute URL`);
  }
  if (!isHttpsOrLoopback(url)) {
    throw refuse(`${flag} must be HTTPS (HTTP only for localhost, 127.0.0.1 or [::1])`);
  }
  if (uri.includes('#')) throw refuse(`${flag} must not have a fragment`);
  if (url.username || url.password) throw refuse(`${flag} must not carry credentials`);
  const control = [...uri].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);
  if (control || /\s/.test(uri)) throw refuse(`${flag} must not contain whitespace`);
  return uri;
}

/**
 * A web origin a client may register (CORS): `scheme://host[:port]` exactly as browsers send it in `Origin`, HTTPS
 * (HTTP only on a loopback host), no path, query, fragment or credentials; stored in its serialized form.
 */
export function checkWebOrigin(origin: string, flag = '--web-origin'): string {
  const refuse = (message: string) => new ProvisioningError(message, { field: 'webOrigins' });
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    throw refuse(`${flag} must be an origin such as https://app.example`);
  }
  if (!isHttpsOrLoopback(url)) {
    throw refuse(`${flag} must be HTTPS (HTTP only for localhost, 127.0.0.1 or [::1])`);
  }
  if (url.origin !== origin.replace(/\/$/, '') || url.username || url.password) {
    throw refuse(`${flag} must be scheme://host[:port] alone (no path, query or credentials)`);
  }
  return url.origin;
}

export interface CreateOidcClientInput extends OidcRegistration {
  anchor: string;
  authMethod?: OidcAuthMethod;
}

/** What a client registers besides its application and auth method: `oidc-client create` and `set` both check it. */
export interface OidcRegistration {
  redirectUris: string[];
  postLogoutRedirectUris?: string[];
  responseTypes?: string[];
  /** Default `authorization_code`; a client with only `device_code` needs no redirect URI. */
  grants?: string[];
  webOrigins?: string[];
  /** RFC 9126 `require_pushed_authorization_requests`: /authorize only with a request_uri from /par. */
  requirePar?: boolean;
  /** dpop_bound_access_tokens (RFC 9449 5.2): the OIDC host's /token issues nothing without a DPoP proof. */
  requireDpop?: boolean;
  /**
   * OIDC Back-Channel Logout 1.0 backchannel_logout_uri: checked by checkBackchannelLogoutUri (the event targets'
   * rules and address check) before the change; null or absent for none.
   */
  backchannelLogoutUri?: string | null;
}

/**
 * How refusals name the inputs: the CLI's flags, or the RFC 7591 metadata of POST /register. Each refusal also
 * carries the input's field (ProvisioningError.field).
 */
export interface RegistrationLabels {
  redirectUri: string;
  postLogoutRedirectUri: string;
  responseType: string;
  grant: string;
  webOrigin: string;
  requirePar: string;
  /** How the source names a public client (web origins are for one only). */
  publicClient: string;
}

export const CLI_LABELS: RegistrationLabels = {
  redirectUri: '--redirect-uri',
  postLogoutRedirectUri: '--post-logout-redirect-uri',
  responseType: '--response-type',
  grant: '--grant',
  webOrigin: '--web-origin',
  requirePar: '--require-par',
  publicClient: '--auth-method none',
};

/** The grants a registration asks for, checked; `authorization_code` when none is given. */
export function grantsOf(input: Pick<OidcRegistration, 'grants'>, labels = CLI_LABELS): OidcGrant[] {
  const grants = input.grants?.length ? [...new Set(input.grants)] : ['authorization_code'];
  for (const g of grants) {
    if (!(OIDC_GRANTS as readonly string[]).includes(g)) {
      throw new ProvisioningError(`${labels.grant} must be one of: ${OIDC_GRANTS.join(', ')}`, {
        field: 'grants',
      });
    }
  }
  return grants as OidcGrant[];
}

/**
 * The registration checked and in its stored form (deduplicated, canonical response types), or a refusal. Web
 * origins are for a public client (`authMethod` none) only: a page that may read a confidential client's /token
 * answers invites its client secret into browser code, where anyone can read it (#37).
 */
export function checkRegistration(input: OidcRegistration, authMethod: string, labels = CLI_LABELS) {
  const grants = grantsOf(input, labels);
  const codeFlow = grants.includes('authorization_code');
  if (codeFlow && input.redirectUris.length === 0)
    throw new ProvisioningError(`give at least one ${labels.redirectUri}`, { field: 'redirectUris' });
  if (!codeFlow && (input.redirectUris.length > 0 || input.responseTypes?.length)) {
    throw new ProvisioningError(
      `${labels.redirectUri} and ${labels.responseType} need ${labels.grant} authorization_code`,
      { field: 'grants' },
    );
  }
  const webOrigins = [...new Set((input.webOrigins ?? []).map((o) => checkWebOrigin(o, labels.webOrigin)))];
  if (authMethod !== 'none' && webOrigins.length > 0) {
    throw new ProvisioningError(
      `${labels.webOrigin} is for a public client (${labels.publicClient}) only: a ${authMethod} client's secret must never be in a browser's code; register the browser application as its own public client (--clear web-origin removes origins registered before)`,
      { field: 'webOrigins' },
    );
  }
  const redirectUris = [...new Set(input.redirectUris.map((u) => checkRedirectUri(u, labels.redirectUri)))];
  const postLogoutRedirectUris = [
    ...new Set(
      (input.postLogoutRedirectUris ?? []).map((u) =>
        checkRedirectUri(u, labels.postLogoutRedirectUri, 'postLogoutRedirectUris'),
      ),
    ),
  ];
  const responseTypes = input.responseTypes?.length
    ? [
        ...new Set(
          input.responseTypes.map((t) => {
            const c = parseResponseType(t.trim());
            if (!c)
              throw new ProvisioningError(
                `${labels.responseType} must be one of: ${OIDC_RESPONSE_TYPES.join(', ')}`,
                { field: 'responseTypes' },
              );
            return c;
          }),
        ),
      ]
    : codeFlow
      ? [...DEFAULT_RESPONSE_TYPES]
      : [];
  const requirePar = input.requirePar ?? false;
  if (requirePar && !codeFlow) {
    throw new ProvisioningError(`${labels.requirePar} needs ${labels.grant} authorization_code`, {
      field: 'requirePar',
    });
  }
  return {
    redirectUris,
    postLogoutRedirectUris,
    responseTypes,
    grantTypes: grants,
    webOrigins,
    requirePar,
    requireDpop: input.requireDpop ?? false,
    backchannelLogoutUri: input.backchannelLogoutUri || null,
  };
}

/** Without a policy from its caller a back-channel logout URI is checked by the strictest one (production's). */
const STRICT_TARGETS: TargetPolicy = { production: true, allowPrivate: false };

/**
 * A back-channel logout URI checked as an event subscription's URL is (CONTRACTS "Events to applications"): https
 * (http only for a loopback host outside production), and in production a host that resolves to no loopback,
 * private, link-local or unique-local address unless EVENTS_ALLOW_PRIVATE_TARGETS. The worker checks again at each
 * delivery. Refusals name `label` (the CLI's flag or the RFC 7591 member).
 */
export async function checkBackchannelLogoutUri(
  ports: Uses<'events'>,
  uri: string | null | undefined,
  policy: TargetPolicy = STRICT_TARGETS,
  label = '--backchannel-logout-uri',
): Promise<void> {
  if (!uri) return;
  try {
    await checkTarget({ resolveHost: ports.events.resolveHost, policy }, uri);
  } catch (err) {
    if (err instanceof EventsError)
      throw new ProvisioningError(`${label}: ${err.message}`, { field: 'backchannelLogoutUri' });
    throw err;
  }
}

/** A new client secret: 256 random bits, shown once; only hashClientSecret of it is stored. */
export function newClientSecret(): string {
  return `oidcs_${randomBytes(32).toString('hex')}`;
}

/**
 * A new client's row for `applicationId` from a checked registration, with its id and its secret (shown once,
 * absent for `none`): what `oidc-client create` and POST /register both insert.
 */
export function newOidcClient(
  applicationId: string,
  registration: ReturnType<typeof checkRegistration>,
  authMethod: OidcAuthMethod,
) {
  const clientId = `oidc_${randomBytes(18).toString('base64url')}`;
  const clientSecret = authMethod === 'none' ? undefined : newClientSecret();
  const row = {
    clientId,
    secretHash: clientSecret ? hashClientSecret(clientSecret) : null,
    authMethod,
    applicationId,
    ...registration,
  };
  return { row, clientId, clientSecret };
}

/** The application may have OIDC clients: it has an enabled OIDC authentication rule. */
export async function requireOidcRule(ports: Uses<'tenancy'>, app: { id: string; anchor: string }) {
  if (!(await ports.tenancy.hasEnabledRule(app.id, 'OIDC'))) {
    throw new ProvisioningError(
      `application ${app.anchor} has no OIDC authentication rule; add one first (app add-rule --app ${app.anchor} --method OIDC)`,
    );
  }
}

export async function createOidcClient(
  ports: Uses<'changes' | 'events'>,
  input: CreateOidcClientInput,
  policy?: TargetPolicy,
) {
  await checkBackchannelLogoutUri(ports, input.backchannelLogoutUri, policy);
  return ports.changes.run(async (tx, audit) => {
    const app = await appByAnchor(tx, input.anchor);
    await requireOidcRule(tx, { id: app.id, anchor: input.anchor });
    const authMethod = input.authMethod ?? 'client_secret_basic';
    const registration = checkRegistration(input, authMethod);
    const made = newOidcClient(app.id, registration, authMethod);
    await tx.tenancy.insertOidcClient(made.row);
    audit.record({
      action: 'oidc_client.create',
      target: { type: 'oidc_client', id: made.clientId },
      changes: {
        ...created({ application: input.anchor, authMethod: made.row.authMethod, ...registration }),
        secret: secretChanged(false, made.clientSecret !== undefined),
      },
    });
    return made.clientSecret
      ? { clientId: made.clientId, clientSecret: made.clientSecret }
      : { clientId: made.clientId };
  });
}
