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
  const params = readAuthorizeParams(pairs);
  const clientId = requestedClientId(params);
  const record = clientId ? await deps.ports.clients.get(clientId) : undefined;
  const outcome = validateAuthorizeRequest(params, authorizeClientOf(record));
  if (outcome.kind === 'page') return { kind: 'page', error: outcome.error.error };
  if (outcome.kind === 'redirect') {
    return { kind: 'answer', target: outcome.target, answer: { error: outcome.error } };
  }
  const { request } = outcome;
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
