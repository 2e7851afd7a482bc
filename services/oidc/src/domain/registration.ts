// Dynamic client registration (RFC 7591) on the wire: the initial access token checked (RFC 6750 invalid_token,
// 401), the client metadata read into the terms of `oidc-client create` and registered through libs/provisioning's
// one rule (registerOidcClient), and the client information response (RFC 7591 3.2.1) with the metadata as
// registered. Unknown metadata is ignored (RFC 7591 2); metadata this host cannot honour is refused. The
// registration is an audited change acting as the token (actor kind registration_token).
import { OAuthError, storableText } from '@svc/platform';
import {
  type DynamicRegistration,
  RegistrationRefusal,
  type RegistrationTokenRecord,
  registerOidcClient,
  usableRegistrationToken,
} from '@svc/provisioning';
import { z } from 'zod';
import { InvalidToken } from './oauth-errors';
import type { OidcDomainDeps } from './ports';

const DEVICE_CODE = 'urn:ietf:params:oauth:grant-type:device_code';

/** The RFC 7591 metadata this host reads; other members are ignored. */
const ClientMetadata = z.looseObject({
  redirect_uris: z.array(z.string().max(4096)).max(20).optional(),
  token_endpoint_auth_method: z.string().max(64).optional(),
  grant_types: z.array(z.string().max(128)).max(10).optional(),
  response_types: z.array(z.string().max(64)).max(10).optional(),
  client_name: storableText().max(200).optional(),
  post_logout_redirect_uris: z.array(z.string().max(4096)).max(20).optional(),
  require_pushed_authorization_requests: z.boolean().optional(),
  dpop_bound_access_tokens: z.boolean().optional(),
  backchannel_logout_uri: z.string().max(4096).optional(),
});
type ClientMetadata = z.infer<typeof ClientMetadata>;

const refuse = (code: 'invalid_redirect_uri' | 'invalid_client_metadata', description: string) =>
  new OAuthError(code, { description });

/** The token of `Authorization: Bearer <token>`, checked: invalid_token (401) otherwise. */
export async function registrationTokenOf(
  deps: OidcDomainDeps,
  authorization: string | undefined,
): Promise<RegistrationTokenRecord> {
  if (authorization === undefined) throw new InvalidToken('an initial access token is required', false);
  const m = /^Bearer ([A-Za-z0-9._~+/-]{1,512}=*)$/i.exec(authorization.trim());
  if (!m) throw new InvalidToken('malformed Bearer credentials');
  try {
    return await usableRegistrationToken(deps.ports.registration, m[1]!, new Date(deps.clock()));
  } catch (err) {
    if (err instanceof RegistrationRefusal) throw new InvalidToken(err.message);
    throw err;
  }
}

// The metadata in the CLI's terms: refresh_token comes with every client and implicit with its response types,
// so neither is stored as a grant.
function toRegistration(m: ClientMetadata): DynamicRegistration {
  const method = m.token_endpoint_auth_method ?? 'client_secret_basic';
  if (method !== 'none' && method !== 'client_secret_basic') {
    throw refuse('invalid_client_metadata', 'token_endpoint_auth_method must be none or client_secret_basic');
  }
  const grants: string[] = [];
  for (const g of m.grant_types ?? []) {
    if (g === 'authorization_code') grants.push('authorization_code');
    else if (g === DEVICE_CODE) grants.push('device_code');
    else if (g !== 'refresh_token' && g !== 'implicit') {
      throw refuse(
        'invalid_client_metadata',
        `grant_types may hold authorization_code, implicit, refresh_token and ${DEVICE_CODE}`,
      );
    }
  }
  return {
    authMethod: method,
    redirectUris: m.redirect_uris ?? [],
    postLogoutRedirectUris: m.post_logout_redirect_uris,
    responseTypes: m.response_types,
    grants,
    requirePar: m.require_pushed_authorization_requests,
    requireDpop: m.dpop_bound_access_tokens,
    clientName: m.client_name,
    backchannelLogoutUri: m.backchannel_logout_uri,
  };
}

/** The grant_types a registered client holds, in RFC 7591's terms. */
function grantTypesOf(grants: string[], responseTypes: string[]): string[] {
  return [
    ...grants.map((g) => (g === 'device_code' ? DEVICE_CODE : g)),
    ...(responseTypes.some((t) => t !== 'code') ? ['implicit'] : []),
    'refresh_token',
  ];
}

/**
 * Registers the client `body` describes with `token`'s application: 201's client information response, or
 * invalid_redirect_uri / invalid_client_metadata (400; nothing spent) or invalid_token (401; the last use taken
 * meanwhile).
 */
export async function registerClient(
  deps: OidcDomainDeps,
  token: RegistrationTokenRecord,
  body: unknown,
  request: { sourceAddress: string; userAgent?: string },
): Promise<Record<string, unknown>> {
  const parsed = ClientMetadata.safeParse(body);
  if (!parsed.success) {
    const field = String(parsed.error.issues[0]?.path[0] ?? 'metadata');
    const code = field === 'redirect_uris' ? 'invalid_redirect_uri' : 'invalid_client_metadata';
    throw refuse(code, `${field} is not valid client metadata`);
  }
  const metadata = toRegistration(parsed.data);
  let made: Awaited<ReturnType<typeof registerOidcClient>>;
  try {
    made = await registerOidcClient(
      deps.ports.registration,
      token,
      metadata,
      new Date(deps.clock()),
      { sourceAddress: request.sourceAddress, userAgent: request.userAgent ?? null },
      deps.oidc.backchannelTargets,
    );
  } catch (err) {
    if (!(err instanceof RegistrationRefusal)) throw err;
    if (err.code === 'invalid_token') throw new InvalidToken(err.message);
    throw refuse(err.code, err.message);
  }
  const r = made.registration;
  return {
    client_id: made.clientId,
    ...(made.clientSecret ? { client_secret: made.clientSecret, client_secret_expires_at: 0 } : {}),
    client_id_issued_at: Math.floor(made.issuedAt.getTime() / 1000),
    token_endpoint_auth_method: metadata.authMethod,
    redirect_uris: r.redirectUris,
    grant_types: grantTypesOf(r.grantTypes, r.responseTypes),
    response_types: r.responseTypes,
    ...(metadata.clientName !== undefined ? { client_name: metadata.clientName } : {}),
    ...(r.postLogoutRedirectUris.length ? { post_logout_redirect_uris: r.postLogoutRedirectUris } : {}),
    require_pushed_authorization_requests: r.requirePar,
    dpop_bound_access_tokens: r.requireDpop,
    // OIDC Back-Channel Logout 1.0: every logout token names the sign-in's sid.
    ...(r.backchannelLogoutUri
      ? { backchannel_logout_uri: r.backchannelLogoutUri, backchannel_logout_session_required: true }
      : {}),
  };
}
