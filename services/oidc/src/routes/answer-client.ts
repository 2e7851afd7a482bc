// Answering the client at the end of /authorize: the code and tokens of the response type from the oidc domain
// (or the OIDC Core 3.1.2.6 error an issuance refusal becomes), encoded in the request's response mode.
import { countAuthorizeOutcome, isDependencyFailure, OAuthError, ServiceError } from '@svc/platform';
import type { Response } from 'express';
import type { OidcDeps } from '../deps';
import { issueAuthorizationResponse } from '../domain/authorization';
import { authorizeErrorForReason } from '../domain/authorize-decision';
import type { AuthorizeError, ResponseTarget } from '../domain/authorize-request';
import type { Interaction, OidcClient, SignInSession } from '../domain/ports';
import { encodeAuthorizationResponse, errorParams, type ResponseParams } from './authorize-response';

/**
 * Sends an authorization response (success or error parameters) to the target in its response mode, counted in
 * oidc_authorize_total as `issued` or its error code.
 */
export function sendToClient(
  res: Response,
  deps: OidcDeps,
  target: ResponseTarget,
  params: ResponseParams,
): void {
  countAuthorizeOutcome(deps.metrics, params.error ?? 'issued');
  const answer = encodeAuthorizationResponse(target, params, { issuer: deps.oidc.oidcUrl });
  for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
  if (answer.kind === 'redirect') res.redirect(answer.status, answer.location);
  else res.status(answer.status).send(answer.html);
}

export function sendErrorToClient(
  res: Response,
  deps: OidcDeps,
  target: ResponseTarget,
  error: AuthorizeError,
) {
  sendToClient(res, deps, target, errorParams(error));
}

/** The redirect URI's origin, or its scheme alone for a URI without one (a native app's private-use scheme). */
export function redirectOrigin(uri: string): string {
  const url = new URL(uri);
  return url.origin === 'null' ? url.protocol : url.origin;
}

export const targetOf = (i: Interaction): ResponseTarget => ({
  redirectUri: i.redirectUri,
  responseMode: i.responseMode,
  state: i.state,
});

/**
 * The response parameters for a finished request, or the error to send instead. Issuance refusals (the account
 * or application became unusable, consent or terms owed after all) are the client's to hear; a failing database
 * or Redis is not an answer and propagates (the page says try again).
 */
export async function issueForClient(
  deps: OidcDeps,
  client: OidcClient,
  request: Interaction,
  signIn: SignInSession,
): Promise<{ params: ResponseParams } | { error: AuthorizeError }> {
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
