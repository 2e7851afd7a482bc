// What /authorize hands out once the person has signed in and consented: a code, and for the implicit and hybrid
// response types an ID token and the application's access token, following the spec's authorization-response
// rules (id_token: no hash; id_token token: at_hash; code id_token: c_hash; code id_token token: both; profile
// claims only for response_type=id_token).
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { profileClaims, runIssuanceChecks } from '@svc/issuance';
import { ServiceError } from '@svc/platform';
import type { OidcResponseType } from '@svc/token-core';
import { mintIdToken, signInSid } from './id-token';
import { type AuthorizationGrant, clientApplication, issueOidcSession } from './issue-oidc';
import type { OidcDomainDeps } from './ports';
import { parseScope } from './scopes';

/** SHA-256 hex of an authorization code: how it is stored and looked up. */
export function hashCode(code: string): string {
  return createHash('sha256').update(code, 'utf8').digest('hex');
}

/**
 * Creates a single-use authorization code for the grant, bound to its client, redirect URI, PKCE challenge, nonce,
 * auth_time, amr, acr, scope and browser session; it expires after OIDC_CODE_TTL_SECONDS. Returns the code.
 */
export async function createAuthorizationCode(
  deps: Pick<OidcDomainDeps, 'clock'> & {
    ports: Pick<OidcDomainDeps['ports'], 'codes'>;
    oidc: Pick<OidcDomainDeps['oidc'], 'codeTtlSeconds'>;
  },
  grant: AuthorizationGrant,
): Promise<string> {
  const code = randomBytes(32).toString('base64url');
  const now = new Date(deps.clock());
  await deps.ports.codes.insert({
    codeHash: hashCode(code),
    oidcClientId: grant.client.id,
    applicationId: grant.client.applicationId,
    accountId: grant.accountId,
    redirectUri: grant.redirectUri,
    codeChallenge: grant.codeChallenge ?? null,
    dpopJkt: grant.dpopJkt ?? null,
    nonce: grant.nonce ?? null,
    scope: grant.scope,
    authTime: grant.authTime,
    amr: [...grant.amr],
    acr: grant.acr ?? null,
    browserSessionId: grant.browserSessionId ?? null,
    authorityVersion: grant.authorityVersion ?? null,
    expiresAt: new Date(now.getTime() + deps.oidc.codeTtlSeconds * 1000),
  });
  return code;
}

/** The parameters of an authorization response (the caller adds `state` and picks the response mode). */
export interface AuthorizationResponseParams {
  code?: string;
  id_token?: string;
  access_token?: string;
  token_type?: 'Bearer';
  expires_in?: number;
  scope?: string;
}

/**
 * The response parameters for `responseType`, which /authorize has already checked against the client's registered
 * response types (and the nonce, required for every type returning an ID token). Throws the issuance core's
 * ServiceError refusals (ApplicationNotActive, AccountDisabled, ClaimConsentRequired, ...) for the caller to turn
 * into an OIDC error response.
 */
export async function issueAuthorizationResponse(
  deps: OidcDomainDeps,
  grant: AuthorizationGrant,
  responseType: OidcResponseType,
): Promise<AuthorizationResponseParams> {
  const words = new Set(responseType.split(' '));
  const out: AuthorizationResponseParams = {};
  if (words.has('code')) out.code = await createAuthorizationCode(deps, grant);
  if (!words.has('id_token')) return out;

  let subject: string;
  let sid: string;
  let profile: Record<string, unknown> | undefined;
  if (words.has('token')) {
    // A front-channel token is never DPoP-bound (RFC 9449 covers the token endpoint); the key binds the code only.
    const issued = await issueOidcSession(deps, { ...grant, dpopJkt: undefined });
    subject = issued.subject;
    sid = issued.idTokenSid;
    out.access_token = issued.accessToken;
    out.token_type = 'Bearer';
    out.expires_in = issued.accessTtl;
    out.scope = grant.scope;
  } else {
    // No session: the ID token alone states the authentication, after the same checks issuance makes.
    const app = await clientApplication(deps, grant.client);
    const { account, claims } = await runIssuanceChecks(deps, app, grant.accountId, {
      expectedAuthorityVersion: grant.authorityVersion,
    });
    subject = await deps.ports.sectorSubjects.resolveSectorSubject(deps.subjectSecret, app.sectorId, {
      kind: 'ACCOUNT',
      id: grant.accountId,
    });
    sid = signInSid(grant.browserSessionId, randomUUID());
    if (responseType === 'id_token')
      profile = profileClaims(account, claims, subject, parseScope(grant.scope));
  }
  out.id_token = await mintIdToken(deps, {
    clientId: grant.client.clientId,
    subject,
    sid,
    authTime: grant.authTime,
    amr: grant.amr,
    acr: grant.acr,
    nonce: grant.nonce,
    accessToken: out.access_token,
    code: out.code,
    profile,
  });
  // Without a session row there is no conditional insert to refuse a change since the checks above: the ID token
  // is released only if the authority it was checked under still holds once it is minted (a passkey removed or a
  // status change while it was being made is refused as the code and token answers are: AuthorizationArtifactStale).
  if (!words.has('token') && grant.authorityVersion !== undefined) {
    const now = await deps.ports.accounts.currentAuthority(grant.accountId);
    if (now?.version !== grant.authorityVersion) throw new ServiceError('AuthorizationArtifactStale');
  }
  return out;
}
