// Dynamic client registration (RFC 7591) behind initial access tokens: `oidc-client registration-token create`
// prints a token (shown once, only its SHA-256 stored) that registers clients of one application a limited number
// of times until it expires; POST /register on the OIDC host spends one use per client, through the same checks
// and the same row as `oidc-client create` (checkRegistration, newOidcClient), so a registered client is an
// ordinary client: listed, shown, changed and deleted like any other.
import { createHash, randomBytes } from 'node:crypto';
import { created, registrationTokenActor, secretChanged } from '@svc/audit';
import type { TargetPolicy } from '@svc/events';
import { ProvisioningError } from '../errors';
import {
  checkBackchannelLogoutUri,
  checkRegistration,
  newOidcClient,
  type OidcRegistration,
  type RegistrationLabels,
  requireOidcRule,
} from './oidc-clients';
import type { RegistrationTokenRecord, Uses } from './ports';
import { appByAnchor } from './tenancy';

export const REGISTRATION_TOKEN_DEFAULTS = { uses: 1, expiresInHours: 24 } as const;
export const REGISTRATION_TOKEN_LIMITS = { uses: 1000, expiresInHours: 24 * 365 } as const;

/** SHA-256 hex of an initial access token: how it is stored and found. */
export function hashRegistrationToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export interface CreateRegistrationTokenInput {
  anchor: string;
  /** How many clients the token may register (default 1). */
  uses?: number;
  /** Hours until it expires (default 24). */
  expiresInHours?: number;
}

async function view(ports: Uses<'listing'>, row: RegistrationTokenRecord) {
  const anchors = await ports.listing.anchors([row.applicationId]);
  const { applicationId, ...rest } = row;
  return { ...rest, applicationAnchor: anchors.get(applicationId) ?? null };
}

/** A new initial access token for `anchor`'s application, shown once (`oirt_` + 256 random bits). */
export async function createRegistrationToken(
  ports: Uses<'changes'>,
  input: CreateRegistrationTokenInput,
  now: Date,
) {
  const uses = input.uses ?? REGISTRATION_TOKEN_DEFAULTS.uses;
  const hours = input.expiresInHours ?? REGISTRATION_TOKEN_DEFAULTS.expiresInHours;
  if (!Number.isInteger(uses) || uses < 1 || uses > REGISTRATION_TOKEN_LIMITS.uses) {
    throw new ProvisioningError(`--uses must be an integer from 1 to ${REGISTRATION_TOKEN_LIMITS.uses}`);
  }
  if (!Number.isInteger(hours) || hours < 1 || hours > REGISTRATION_TOKEN_LIMITS.expiresInHours) {
    throw new ProvisioningError(
      `--expires-in-hours must be an integer from 1 to ${REGISTRATION_TOKEN_LIMITS.expiresInHours}`,
    );
  }
  const token = `oirt_${randomBytes(32).toString('base64url')}`;
  const expiresAt = new Date(now.getTime() + hours * 3600_000);
  const id = await ports.changes.run(async (tx, audit) => {
    const app = await appByAnchor(tx, input.anchor);
    await requireOidcRule(tx, { id: app.id, anchor: input.anchor });
    const made = await tx.registrationTokens.insert({
      tokenHash: hashRegistrationToken(token),
      applicationId: app.id,
      usesLeft: uses,
      expiresAt,
    });
    audit.record({
      action: 'oidc_client.registration_token.create',
      target: { type: 'oidc_registration_token', id: made },
      changes: {
        ...created({ application: input.anchor, usesLeft: uses, expiresAt: expiresAt.toISOString() }),
        token: secretChanged(false, true),
      },
    });
    return made;
  });
  return {
    registrationToken: { id, applicationAnchor: input.anchor, usesLeft: uses, expiresAt, revokedAt: null },
    token,
  };
}

/** Every initial access token (one application's with `anchor`), oldest first, never a token or its hash. */
export async function listRegistrationTokens(
  ports: Uses<'tenancy' | 'registrationTokens' | 'listing'>,
  anchor: string | undefined,
) {
  const appId = anchor ? (await appByAnchor(ports, anchor)).id : undefined;
  const rows = await ports.registrationTokens.list(appId);
  return { registrationTokens: await Promise.all(rows.map((r) => view(ports, r))) };
}

/** Revokes a token: it registers nothing more (clients it registered stay). */
export async function revokeRegistrationToken(ports: Uses<'changes'>, id: string, now: Date) {
  await ports.changes.run(async (tx, audit) => {
    if (!(await tx.registrationTokens.revoke(id, now))) {
      throw new ProvisioningError(
        'registration token not found or already revoked (registration-token list)',
      );
    }
    audit.record({
      action: 'oidc_client.registration_token.revoke',
      target: { type: 'oidc_registration_token', id },
      changes: { revokedAt: { from: null, to: now.toISOString() } },
    });
  });
  return { id, revokedAt: now };
}

/** Why POST /register refuses (RFC 7591 3.2.2 and RFC 6750 3.1); the OIDC host maps each to its answer. */
export type RegistrationRefusalCode = 'invalid_token' | 'invalid_redirect_uri' | 'invalid_client_metadata';

export class RegistrationRefusal extends ProvisioningError {
  readonly code: RegistrationRefusalCode;
  constructor(code: RegistrationRefusalCode, message: string) {
    super(message);
    this.name = 'RegistrationRefusal';
    this.code = code;
  }
}

/** RFC 7591's names for the inputs, in refusals of POST /register. */
export const METADATA_LABELS: RegistrationLabels = {
  redirectUri: 'redirect_uris',
  postLogoutRedirectUri: 'post_logout_redirect_uris',
  responseType: 'response_types',
  grant: 'grant_types',
  webOrigin: 'web_origins',
  requirePar: 'require_pushed_authorization_requests',
  publicClient: 'token_endpoint_auth_method none',
};

/** What a client registers itself with, its RFC 7591 metadata read into the CLI's terms. */
export interface DynamicRegistration extends OidcRegistration {
  authMethod: 'none' | 'client_secret_basic';
  clientName?: string;
}

/**
 * The token a POST /register presents, while it can pay for a registration: unknown, spent, revoked and expired
 * tokens, and a token whose application no longer has an OIDC rule, are invalid_token.
 */
export async function usableRegistrationToken(
  ports: Uses<'tenancy' | 'registrationTokens'>,
  token: string,
  now: Date,
): Promise<RegistrationTokenRecord> {
  const found = await ports.registrationTokens.findByHash(hashRegistrationToken(token));
  if (!found || found.usesLeft <= 0 || found.revokedAt || found.expiresAt <= now) {
    throw new RegistrationRefusal(
      'invalid_token',
      'the initial access token is unknown, spent, revoked or expired',
    );
  }
  if (!(await ports.tenancy.hasEnabledRule(found.applicationId, 'OIDC'))) {
    throw new RegistrationRefusal(
      'invalid_token',
      'the application of this token no longer takes OIDC clients',
    );
  }
  return found;
}

/**
 * Registers a client of `token`'s application, spending one of its uses: the metadata is checked by the rules of
 * `oidc-client create` (invalid_redirect_uri, invalid_client_metadata; nothing spent), then, in one audited change
 * acting as the token, the use is spent (invalid_token when a concurrent registration took the last one) and the
 * client inserted with its audit row.
 */
export async function registerOidcClient(
  ports: Uses<'changes' | 'events'>,
  token: RegistrationTokenRecord,
  metadata: DynamicRegistration,
  now: Date,
  request: { requestId?: string | null; sourceAddress?: string | null; userAgent?: string | null } = {},
  /** Where backchannel_logout_uri may point (the event targets' policy); the strictest without one. */
  targets?: TargetPolicy,
) {
  let registration: ReturnType<typeof checkRegistration>;
  try {
    await checkBackchannelLogoutUri(ports, metadata.backchannelLogoutUri, targets, 'backchannel_logout_uri');
    registration = checkRegistration(metadata, metadata.authMethod, METADATA_LABELS);
  } catch (err) {
    if (!(err instanceof ProvisioningError)) throw err;
    const code = err.field === 'redirectUris' ? 'invalid_redirect_uri' : 'invalid_client_metadata';
    throw new RegistrationRefusal(code, err.message);
  }
  const made = newOidcClient(token.applicationId, registration, metadata.authMethod);
  const clientName = metadata.clientName ?? null;
  await ports.changes.as(registrationTokenActor(token, request)).run(async (tx, audit) => {
    if (!(await tx.registrationTokens.spend(token.id, now))) {
      throw new RegistrationRefusal('invalid_token', 'the initial access token is spent, revoked or expired');
    }
    await tx.tenancy.insertOidcClient({ ...made.row, clientName, registrationTokenId: token.id });
    const anchors = await tx.listing.anchors([token.applicationId]);
    audit.record({
      action: 'oidc_client.register',
      target: { type: 'oidc_client', id: made.clientId },
      changes: {
        ...created({
          application: anchors.get(token.applicationId) ?? token.applicationId,
          authMethod: made.row.authMethod,
          clientName: clientName ?? undefined,
          ...registration,
        }),
        secret: secretChanged(false, made.clientSecret !== undefined),
      },
    });
  });
  return { clientId: made.clientId, clientSecret: made.clientSecret, registration, issuedAt: now };
}
