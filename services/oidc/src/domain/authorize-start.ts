// An authorization request at /authorize: validated against its client (authorize-request.ts), then told apart into
// an error page (the client or its redirect URI is not trusted), an error for the client, or a request parked for
// the pages at /interaction/{uid} (interaction.ts), which decide sign-in with the browser's cookie in hand.
import { type Locale, OAuthError } from '@svc/platform';
import { type ClientAnswer, targetOf } from './authorize-answer';
import { authorizeClientOf } from './authorize-client';
import {
  type ResponseTarget,
  readAuthorizeParams,
  requestedClientId,
  validateAuthorizeRequest,
} from './authorize-request';
import type { AuthorizeErrorCode } from './authorize-terms';
import { toInteraction } from './interaction';
import { clientApplication } from './issue-oidc';
import type { OidcClient, OidcDomainDeps } from './ports';
import { takePushedRequest } from './pushed-request';

export type AuthorizationStart =
  /** The client or its redirect URI is not trusted: an error page, never a redirect. */
  | { kind: 'page'; error: AuthorizeErrorCode }
  /** The client hears an error at its redirect URI. */
  | { kind: 'answer'; target: ResponseTarget; answer: ClientAnswer }
  /** Parked under `uid` for the pages, in the language the request asked for. */
  | { kind: 'interaction'; uid: string; uiLocale?: Locale };

/**
 * `pairs`: the request's parameters as sent (GET query or POST form), repeats kept in order; `address`: the client
 * address, counted against its limit before anything else (a flood over it costs one Redis operation a request, no
 * client lookup and nothing parked).
 */
export async function startAuthorization(
  deps: OidcDomainDeps,
  pairs: [string, string][],
  address: string,
): Promise<AuthorizationStart> {
  await deps.ports.authorizeLimit.consume(address);
  let params = readAuthorizeParams(pairs);
  // A pushed request (RFC 9126 4): its parameters, taken once, are the request; the rest of the URL is ignored.
  const pushed = params.values.has('request_uri') ? await takePushedRequest(deps, params) : undefined;
  if (pushed?.kind === 'refused') return { kind: 'page', error: 'invalid_request' };
  if (pushed) params = pushed.params;
  const clientId = requestedClientId(params);
  const record = clientId ? await deps.ports.clients.get(clientId) : undefined;
  const outcome = validateAuthorizeRequest(params, authorizeClientOf(record));
  if (outcome.kind === 'page') return { kind: 'page', error: outcome.error.error };
  if (!pushed && record?.requirePar) {
    const target = outcome.kind === 'redirect' ? outcome.target : targetOf(outcome.request);
    const error = {
      error: 'invalid_request',
      description:
        'This client must push its authorization requests to the pushed authorization request endpoint.',
    } as const;
    return { kind: 'answer', target, answer: { error } };
  }
  if (outcome.kind === 'redirect') {
    return { kind: 'answer', target: outcome.target, answer: { error: outcome.error } };
  }
  const request = pushed?.dpopJkt ? { ...outcome.request, dpopJkt: pushed.dpopJkt } : outcome.request;
  const target = targetOf(request);
  try {
    // Valid: the request names a registered client (validateAuthorizeRequest had it).
    await clientApplication(deps, record as OidcClient);
  } catch (err) {
    if (!(err instanceof OAuthError)) throw err;
    const error = {
      error: 'unauthorized_client',
      description: 'This client may not sign people in now.',
    } as const;
    return { kind: 'answer', target, answer: { error } };
  }
  const uid = await deps.ports.interactions.park(toInteraction(request, deps.clock()));
  return { kind: 'interaction', uid, uiLocale: request.uiLocale };
}
