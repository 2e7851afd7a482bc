// Issuing an OIDC session: the issuance core's checks and a new session (protocol OIDC) with the application's
// own access token (typ application-access, aud the anchor, iss ISSUER_URL, sid), plus the OIDC session row that
// binds it to its client and keeps the authentication references for later ID tokens.
import { type ApplicationContext, issueSession } from '@svc/issuance';
import { signInSid } from './id-token';
import { UnauthorizedClient } from './oauth-errors';
import type { OidcClient, OidcDomainDeps } from './ports';

/** What the person authorized at /authorize, as the sign-in pages hand it over (see `createAuthorizationCode`). */
export interface AuthorizationGrant {
  client: OidcClient;
  accountId: string;
  /** The exact registered redirect URI the request named. */
  redirectUri: string;
  /** Granted scopes, space-separated, including `openid`. */
  scope: string;
  nonce?: string;
  /** PKCE S256 challenge (base64url SHA-256 of the verifier) when the request carried one. */
  codeChallenge?: string;
  /**
   * The DPoP key of the proof sent with the pushed request (RFC 9449 10): the code is bound to it. At issuance (a
   * token endpoint grant) the key of the request's proof, which the access token carries as cnf.jkt.
   */
  dpopJkt?: string;
  /** When the person authenticated (kept across refresh grants). */
  authTime: Date;
  /** RFC 8176 method references of that authentication (libs/signin auth-references.ts). */
  amr: readonly string[];
  acr?: string;
  /** The OIDC host's browser sign-in session (end-session ends it). */
  browserSessionId?: string;
  /** The account's authority version seen at sign-in: a change before issuance is AuthorizationArtifactStale. */
  authorityVersion?: number;
}

/** The application of a client, issuable through OIDC (an enabled OIDC authentication rule). */
export async function clientApplication(
  deps: OidcDomainDeps,
  client: OidcClient,
): Promise<ApplicationContext> {
  const app = await deps.apps.get(client.applicationAnchor);
  if (!app || app.id !== client.applicationId) throw new UnauthorizedClient('the client has no application');
  if (!app.authRules.some((r) => r.method === 'OIDC')) {
    throw new UnauthorizedClient('the application does not accept OIDC sign-in');
  }
  return app;
}

export interface IssuedOidcSession {
  sid: string;
  /** The ID tokens' `sid`: the sign-in session's (id-token.ts signInSid), stored with the OIDC session. */
  idTokenSid: string;
  subject: string;
  accessToken: string;
  refreshToken: string;
  accessTtl: number;
  /** The access token's DPoP key, when it is bound (token_type DPoP). */
  dpopJkt?: string;
}

export async function issueOidcSession(
  deps: OidcDomainDeps,
  grant: Omit<AuthorizationGrant, 'redirectUri' | 'nonce' | 'codeChallenge'> & {
    /** A device authorization this issue consumes, in the statement that inserts the session (device grant). */
    redeemsDeviceAuthorization?: { id: string };
  },
): Promise<IssuedOidcSession> {
  const app = await clientApplication(deps, grant.client);
  const issued = await issueSession(deps, {
    application: app,
    principal: { kind: 'ACCOUNT', accountId: grant.accountId },
    authMethod: 'OIDC',
    protocol: 'OIDC',
    authTime: grant.authTime,
    scope: grant.scope,
    expectedAuthorityVersion: grant.authorityVersion,
    redeemsDeviceAuthorization: grant.redeemsDeviceAuthorization,
    dpopJkt: grant.dpopJkt,
  });
  const idTokenSid = signInSid(grant.browserSessionId, issued.sid);
  await deps.ports.oidcSessions.insert({
    sid: issued.sid,
    oidcClientId: grant.client.id,
    clientId: grant.client.clientId,
    amr: [...grant.amr],
    acr: grant.acr ?? null,
    browserSessionId: grant.browserSessionId ?? null,
    idTokenSid,
    // RFC 9449 5: a public client's refresh token is bound to the key (a confidential client's is bound to its
    // authentication already); every refresh must then prove that key.
    dpopJkt: grant.dpopJkt && grant.client.authMethod === 'none' ? grant.dpopJkt : null,
  });
  return {
    sid: issued.sid,
    idTokenSid,
    subject: issued.subject,
    accessToken: issued.accessToken,
    refreshToken: issued.refreshToken,
    accessTtl: issued.accessTtl,
    dpopJkt: grant.dpopJkt,
  };
}
