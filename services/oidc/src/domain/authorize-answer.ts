// The answer a finished authorization request owes its client: the code and tokens of its response type (from
// authorization.ts), or the OIDC Core 3.1.2.6 error an issuance refusal becomes. Encoding it in the request's
// response mode is the route's (routes/authorize-response.ts).
import { isDependencyFailure, OAuthError, ServiceError } from '@svc/platform';
import { issueAuthorizationResponse } from './authorization';
import { authorizeErrorForReason } from './authorize-decision';
import type { AuthorizeError, ResponseTarget } from './authorize-request';
import type { Interaction, OidcClient, OidcDomainDeps, SignInSession } from './ports';

/** Parameters of an authorization response (the encoder adds `state` and `iss`); undefined members are left out. */
export type ResponseParams = Record<string, string | undefined>;

/** The response parameters for a finished request, or the error to send instead. */
export type ClientAnswer = { params: ResponseParams } | { error: AuthorizeError };

/** Where a parked request's answer goes: its redirect URI, response mode and state. */
export const targetOf = (i: Pick<Interaction, 'redirectUri' | 'responseMode' | 'state'>): ResponseTarget => ({
  redirectUri: i.redirectUri,
  responseMode: i.responseMode,
  state: i.state,
});

/**
 * Issues for a finished request under the sign-in that answers it. Issuance refusals (the account or application
 * became unusable, consent or terms owed after all) are the client's to hear; a failing database or Redis is not an
 * answer and propagates (the page says try again).
 */
export async function issueForClient(
  deps: OidcDomainDeps,
  client: OidcClient,
  request: Interaction,
  signIn: SignInSession,
): Promise<ClientAnswer> {
  try {
    const out = await issueAuthorizationResponse(
      deps,
      {
        client,
        accountId: signIn.accountId,
        redirectUri: request.redirectUri,
        scope: request.scopes.join(' '),
        nonce: request.nonce,
        codeChallenge: request.codeChallenge,
        dpopJkt: request.dpopJkt,
        authTime: new Date(signIn.authTime * 1000),
        amr: signIn.amr,
        acr: signIn.acr,
        browserSessionId: signIn.handle,
        authorityVersion: signIn.authority.version,
      },
      request.responseType,
    );
    const params: ResponseParams = {
      code: out.code,
      id_token: out.id_token,
      access_token: out.access_token,
      token_type: out.token_type,
      expires_in: out.expires_in === undefined ? undefined : String(out.expires_in),
      scope: out.scope,
    };
    return { params };
  } catch (err) {
    if (isDependencyFailure(err)) throw err;
    if (err instanceof ServiceError) return { error: authorizeErrorForReason(err.reason) };
    if (err instanceof OAuthError && err.error === 'unauthorized_client') {
      return {
        error: { error: 'unauthorized_client', description: 'This client may not sign people in now.' },
      };
    }
    deps.logger.error({ err }, 'authorization response failed');
    return { error: { error: 'server_error', description: 'The request could not be completed.' } };
  }
}
