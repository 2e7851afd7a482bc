// Pushed authorization requests (RFC 9126). At /par the authenticated client's parameters get the checks /authorize
// gives them (authorize-request.ts), answered as JSON errors instead of a redirect, and wait 60 s under a random
// request_uri. At /authorize a request_uri (with its client_id) is taken once, only by the client that pushed it,
// and its pushed parameters are the request: nothing else in the browser's URL counts.
import { randomBytes } from 'node:crypto';
import { type OAuthCode, OAuthError } from '@svc/platform';
import { authorizeClientOf } from './authorize-client';
import {
  type AuthorizeError,
  type AuthorizeParams,
  readAuthorizeParams,
  validateAuthorizeRequest,
} from './authorize-request';
import { clientApplication } from './issue-oidc';
import { InvalidRequest, UnauthorizedClient } from './oauth-errors';
import type { OidcClient, OidcDomainDeps } from './ports';

/** RFC 9126 2.2: the lifetime of a request_uri (`expires_in`). */
export const PUSHED_REQUEST_TTL_SECONDS = 60;

/** RFC 9126 2.2: the URN namespace of request_uri values. */
export const REQUEST_URI_PREFIX = 'urn:ietf:params:oauth:request_uri:';

/** What the push binds beyond its parameters: the DPoP key the proof at /par named (RFC 9449 section 10.1). */
export interface PushBinding {
  dpopJkt?: string;
}

/** The 201 answer of /par (RFC 9126 2.2). */
export interface PushedAnswer {
  request_uri: string;
  expires_in: number;
}

/** Form fields that authenticate the client, never authorization parameters. */
const CREDENTIAL_FIELDS = new Set(['client_secret', 'client_assertion', 'client_assertion_type']);

// An /authorize check's refusal as /par answers it (RFC 9126 2.3: the token endpoint's error format). The page-only
// codes name the redirect URI or client, which /par can name in its answer.
function refusal(error: AuthorizeError): OAuthError {
  if (error.error === 'invalid_redirect_uri' || error.error === 'invalid_client') {
    return new InvalidRequest(error.description);
  }
  return new OAuthError(error.error as OAuthCode, { description: error.description });
}

/**
 * Checks `form` (the /par body) for `client` as /authorize would and stores it for one use; the answer's
 * request_uri is for this client only, for PUSHED_REQUEST_TTL_SECONDS.
 */
export async function pushAuthorizationRequest(
  deps: OidcDomainDeps,
  client: OidcClient,
  form: Record<string, string | undefined>,
  binding: PushBinding = {},
): Promise<PushedAnswer> {
  const pairs = Object.entries(form).filter(
    (e): e is [string, string] => e[1] !== undefined && !CREDENTIAL_FIELDS.has(e[0]),
  );
  // RFC 9126 2.1: a pushed request never carries a request_uri of its own.
  if (pairs.some(([name]) => name === 'request_uri')) {
    throw new InvalidRequest('request_uri must not be pushed');
  }
  // client_id is optional in the form of a client that authenticated by Basic (client-auth.ts compared it).
  if (!pairs.some(([name]) => name === 'client_id')) pairs.push(['client_id', client.clientId]);
  const outcome = validateAuthorizeRequest(readAuthorizeParams(pairs), authorizeClientOf(client));
  if (outcome.kind !== 'valid') throw refusal(outcome.error);
  try {
    await clientApplication(deps, client);
  } catch (err) {
    if (!(err instanceof OAuthError)) throw err;
    throw new UnauthorizedClient('This client may not sign people in now.');
  }
  const requestUri = `${REQUEST_URI_PREFIX}${randomBytes(32).toString('base64url')}`;
  const expiresAt = deps.clock() + PUSHED_REQUEST_TTL_SECONDS * 1000;
  await deps.ports.pushedRequests.push(
    client.clientId,
    requestUri,
    { pairs, expiresAt, ...(binding.dpopJkt ? { dpopJkt: binding.dpopJkt } : {}) },
    PUSHED_REQUEST_TTL_SECONDS,
  );
  return { request_uri: requestUri, expires_in: PUSHED_REQUEST_TTL_SECONDS };
}

export type PushedResolution =
  | { kind: 'pushed'; params: AuthorizeParams; dpopJkt?: string }
  /** Unknown, another client's, expired or used: an error page (no redirect URI is trusted yet). */
  | { kind: 'refused'; description: string };

/**
 * The parameters of the pushed request `params` (an /authorize request carrying request_uri) names, taken once.
 * Only client_id and request_uri of the browser's request are read (RFC 9126 4).
 */
export async function takePushedRequest(
  deps: OidcDomainDeps,
  params: AuthorizeParams,
): Promise<PushedResolution> {
  const { values, repeated } = params;
  const clientId = values.get('client_id');
  const requestUri = values.get('request_uri');
  if (repeated.has('client_id') || repeated.has('request_uri') || !clientId || !requestUri) {
    return { kind: 'refused', description: 'client_id and request_uri must each be given once.' };
  }
  if (!requestUri.startsWith(REQUEST_URI_PREFIX) || requestUri.length > 256) {
    return { kind: 'refused', description: 'request_uri is not one this server issued at /par.' };
  }
  const taken = await deps.ports.pushedRequests.take(clientId, requestUri);
  switch (taken.kind) {
    case 'taken':
      return {
        kind: 'pushed',
        params: readAuthorizeParams(taken.request.pairs),
        ...(taken.request.dpopJkt ? { dpopJkt: taken.request.dpopJkt } : {}),
      };
    case 'unknown':
      return { kind: 'refused', description: 'request_uri is unknown, used, or not this client’s.' };
    case 'expired':
      return { kind: 'refused', description: 'request_uri has expired.' };
    case 'used':
      return { kind: 'refused', description: 'request_uri has been used.' };
  }
}
