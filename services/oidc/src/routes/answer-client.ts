// Answering the client at the end of /authorize: the parameters or error the domain decided (domain/authorize-
// answer.ts), encoded in the request's response mode and counted.
import { countAuthorizeOutcome } from '@svc/platform';
import type { Response } from 'express';
import type { OidcDeps } from '../deps';
import type { ClientAnswer } from '../domain/authorize-answer';
import type { ResponseTarget } from '../domain/authorize-request';
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

/** Sends what the domain decided the client hears: its response parameters or its error. */
export function sendAnswer(
  res: Response,
  deps: OidcDeps,
  out: { target: ResponseTarget; answer: ClientAnswer },
): void {
  const params = 'error' in out.answer ? errorParams(out.answer.error) : out.answer.params;
  sendToClient(res, deps, out.target, params);
}

/** The redirect URI's origin, or its scheme alone for a URI without one (a native app's private-use scheme). */
export function redirectOrigin(uri: string): string {
  const url = new URL(uri);
  return url.origin === 'null' ? url.protocol : url.origin;
}
