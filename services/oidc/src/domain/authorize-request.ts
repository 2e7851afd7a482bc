// The /authorize request rules (OpenID Connect Core 3.1.2.1, 3.2.2.1, 3.3.2.1; RFC 7636): a list of small named
// checks run in order over the request's parameters. Until the client and its exact redirect URI are known, an
// error is shown on the OIDC host's own page and never sent anywhere; after that, errors go back to the client in
// the response mode the request asked for (OIDC Core 3.1.2.6).
import { isStorableText, type Locale } from '@svc/platform';
import { type OidcResponseType, parseResponseType } from '@svc/token-core';
import {
  type AuthorizeErrorCode,
  defaultResponseMode,
  RESPONSE_MODES,
  type ResponseMode,
  returnsFrontChannelToken,
} from './authorize-terms';

/** What /authorize needs to know about a registered client. */
export interface AuthorizeClient {
  clientId: string;
  /** Registered redirect URIs; a request's `redirect_uri` must equal one of them exactly, byte for byte. */
  redirectUris: readonly string[];
  /** Response types the client registered (a subset of OIDC_RESPONSE_TYPES). */
  responseTypes: readonly OidcResponseType[];
  /** A public client (token endpoint auth method `none`) must send PKCE with every code request. */
  isPublic: boolean;
}

export type Prompt = 'none' | 'login' | 'consent' | 'select_account';
export const PROMPTS: readonly Prompt[] = ['none', 'login', 'consent', 'select_account'];

/** The scopes this provider knows; others are ignored (RFC 6749 3.3 lets the server narrow the request). */
export const SCOPES = ['openid', 'profile', 'email', 'offline_access'] as const;
export type Scope = (typeof SCOPES)[number];

/** A valid authorization request, every value checked. */
export interface AuthorizationRequest<C extends AuthorizeClient = AuthorizeClient> {
  client: C;
  redirectUri: string;
  responseType: OidcResponseType;
  responseMode: ResponseMode;
  /**
   * Known scopes in request order, `openid` among them; `offline_access` only when a code is returned and prompt
   * asks for consent (OIDC Core 11).
   */
  scopes: Scope[];
  state?: string;
  nonce?: string;
  /** The S256 code challenge (43 base64url characters), when the request carried one with a code. */
  codeChallenge?: string;
  prompt: ReadonlySet<Prompt>;
  /** Seconds; the person must have authenticated at most this long ago. */
  maxAge?: number;
  /** The first of `ui_locales` this host speaks, if any. */
  uiLocale?: Locale;
  /** OIDC Core 3.1.2.1: prefills the sign-up form's address when it is one. */
  loginHint?: string;
  idTokenHint?: string;
  /**
   * The JWK thumbprint of the DPoP proof sent with the pushed request this came from (RFC 9449 section 10.1): the
   * code issued for it is bound to that key. Never read from the browser's query.
   */
  dpopJkt?: string;
}

/** Where an authorization response (success or error) goes. */
export interface ResponseTarget {
  redirectUri: string;
  responseMode: ResponseMode;
  state?: string;
}

export interface AuthorizeError {
  error: AuthorizeErrorCode;
  /** A fixed English sentence; never echoes request input. */
  description: string;
}

export type AuthorizeOutcome<C extends AuthorizeClient> =
  | { kind: 'valid'; request: AuthorizationRequest<C> }
  /** The client or its redirect URI is not trusted: show an error page, redirect nowhere. */
  | { kind: 'page'; error: AuthorizeError }
  /** The redirect URI is trusted: send the error to the client. */
  | { kind: 'redirect'; target: ResponseTarget; error: AuthorizeError };

/** Longest accepted value of any recognised parameter (state and nonce included). */
export const MAX_PARAM_LENGTH = 4096;

/** Parameters whose repetition is refused (OAuth 2.0 3.1: "MUST NOT be included more than once"). */
export const RECOGNISED = [
  'client_id',
  'redirect_uri',
  'response_type',
  'response_mode',
  'scope',
  'state',
  'nonce',
  'code_challenge',
  'code_challenge_method',
  'prompt',
  'max_age',
  'ui_locales',
  'display',
  'login_hint',
  'id_token_hint',
  'acr_values',
  'claims_locales',
  'request',
  'request_uri',
  'registration',
] as const;
type Name = (typeof RECOGNISED)[number];

/** The request's recognised parameters: their values (empty ones dropped, as if omitted) and which repeat. */
export interface AuthorizeParams {
  values: Map<Name, string>;
  repeated: Set<Name>;
}

/** Reads the recognised parameters from a query string or form body; a value sent empty counts as omitted. */
export function readAuthorizeParams(pairs: Iterable<[string, string]>): AuthorizeParams {
  const values = new Map<Name, string>();
  const repeated = new Set<Name>();
  for (const [name, value] of pairs) {
    if (!(RECOGNISED as readonly string[]).includes(name) || value === '') continue;
    const n = name as Name;
    if (values.has(n)) repeated.add(n);
    else values.set(n, value);
  }
  return { values, repeated };
}

/** The client id to look up before validating, or undefined when it is missing or repeated. */
export function requestedClientId(params: AuthorizeParams): string | undefined {
  if (params.repeated.has('client_id')) return undefined;
  const id = params.values.get('client_id');
  return id !== undefined && acceptable(id) ? id : undefined;
}

const acceptable = (v: string) => v.length <= MAX_PARAM_LENGTH && isStorableText(v);
const fail = (error: AuthorizeErrorCode, description: string): AuthorizeError => ({ error, description });

/**
 * Validates an authorization request against the client `client_id` names (undefined when no such client).
 * Checks run in order; the first failure decides the outcome.
 */
export function validateAuthorizeRequest<C extends AuthorizeClient>(
  params: AuthorizeParams,
  client: C | undefined,
): AuthorizeOutcome<C> {
  const page = trustRedirect(params, client);
  if (page) return { kind: 'page', error: page };
  const trusted = client as C;
  const redirectUri = params.values.get('redirect_uri') as string;
  const target = responseTarget(params, redirectUri);
  const step = runChecks(params, trusted);
  if ('error' in step) return { kind: 'redirect', target, error: step };
  return {
    kind: 'valid',
    request: { ...step, client: trusted, redirectUri, responseMode: target.responseMode },
  };
}

// Steps before any redirect: the client exists and the redirect URI is one it registered, exactly.
function trustRedirect(
  params: AuthorizeParams,
  client: AuthorizeClient | undefined,
): AuthorizeError | undefined {
  const { values, repeated } = params;
  if (repeated.has('client_id')) return fail('invalid_request', 'client_id was given more than once.');
  if (!values.has('client_id')) return fail('invalid_request', 'client_id is required.');
  if (!client || client.clientId !== values.get('client_id'))
    return fail('invalid_client', 'Unknown client.');
  if (repeated.has('redirect_uri')) return fail('invalid_request', 'redirect_uri was given more than once.');
  const uri = values.get('redirect_uri');
  if (uri === undefined) return fail('invalid_request', 'redirect_uri is required.');
  if (!client.redirectUris.includes(uri)) {
    return fail('invalid_redirect_uri', 'redirect_uri is not registered for this client.');
  }
  return undefined;
}

// Where errors go once the redirect URI is trusted: the requested mode when it is valid for the response type,
// else the response type's default; `state` only when it was sent once and is acceptable.
function responseTarget(params: AuthorizeParams, redirectUri: string): ResponseTarget {
  const rawType = params.values.get('response_type') ?? '';
  const fallback = defaultResponseMode(rawType);
  const asked = params.repeated.has('response_mode') ? undefined : params.values.get('response_mode');
  const tokenBearing = returnsFrontChannelToken(rawType);
  const mode =
    asked && (RESPONSE_MODES as readonly string[]).includes(asked) && !(asked === 'query' && tokenBearing)
      ? (asked as ResponseMode)
      : fallback;
  const state = params.repeated.has('state') ? undefined : params.values.get('state');
  return {
    redirectUri,
    responseMode: mode,
    state: state !== undefined && acceptable(state) ? state : undefined,
  };
}

type Checked = Omit<AuthorizationRequest, 'client' | 'redirectUri' | 'responseMode'>;

function runChecks(params: AuthorizeParams, client: AuthorizeClient): Checked | AuthorizeError {
  const { values, repeated } = params;
  const dup = RECOGNISED.find((n) => repeated.has(n));
  if (dup) return fail('invalid_request', `${dup} was given more than once.`);
  const unacceptable = [...values.entries()].find(([, v]) => !acceptable(v));
  if (unacceptable)
    return fail('invalid_request', `${unacceptable[0]} is too long or holds a forbidden character.`);
  if (values.has('request')) return fail('request_not_supported', 'Request objects are not supported.');
  if (values.has('request_uri')) return fail('request_uri_not_supported', 'request_uri is not supported.');
  if (values.has('registration')) return fail('registration_not_supported', 'registration is not supported.');

  const mode = values.get('response_mode');
  if (mode !== undefined && !(RESPONSE_MODES as readonly string[]).includes(mode)) {
    return fail('invalid_request', 'response_mode must be query, fragment or form_post.');
  }
  const rawType = values.get('response_type');
  if (rawType === undefined) return fail('invalid_request', 'response_type is required.');
  const responseType = parseResponseType(rawType);
  if (!responseType) return fail('unsupported_response_type', 'This response_type is not supported.');
  if (mode === 'query' && returnsFrontChannelToken(responseType)) {
    return fail('invalid_request', 'response_mode query cannot carry tokens; use fragment or form_post.');
  }
  if (!client.responseTypes.includes(responseType)) {
    return fail('unauthorized_client', 'The client is not registered for this response_type.');
  }

  // prompt is read here, before its own check below, because offline_access depends on it.
  const askedConsent = readPrompt(values.get('prompt'))?.has('consent') ?? false;
  const scopes = readScopes(values.get('scope'), responseType, askedConsent);
  if (!scopes) return fail('invalid_scope', 'scope must contain openid.');
  const nonce = values.get('nonce');
  if (nonce === undefined && responseType.includes('id_token')) {
    return fail('invalid_request', 'nonce is required when the authorization response carries an ID token.');
  }
  const pkce = readPkce(params, responseType, client);
  if (typeof pkce === 'object') return pkce;
  const prompt = readPrompt(values.get('prompt'));
  if (!prompt)
    return fail('invalid_request', 'prompt must be none, or any of login, consent, select_account.');
  const maxAge = values.get('max_age');
  if (maxAge !== undefined && !/^\d{1,9}$/.test(maxAge)) {
    return fail('invalid_request', 'max_age must be a non-negative integer number of seconds.');
  }
  const display = values.get('display');
  if (display !== undefined && !['page', 'popup', 'touch', 'wap'].includes(display)) {
    return fail('invalid_request', 'display must be page, popup, touch or wap.');
  }
  return {
    responseType,
    scopes,
    state: values.get('state'),
    nonce,
    codeChallenge: pkce,
    prompt,
    maxAge: maxAge === undefined ? undefined : Number(maxAge),
    uiLocale: localeFromUiLocales(values.get('ui_locales')),
    loginHint: values.get('login_hint'),
    idTokenHint: values.get('id_token_hint'),
  };
}

// Known scopes in request order without repeats; undefined when `openid` is missing. offline_access asks for a
// refresh token, which OIDC Core 11 grants only when a code is returned and the request asks the person's consent
// with prompt=consent (the review page then says the application stays signed in); otherwise it is ignored, as
// if not asked for. No other condition permits it here: the person's claim consent says nothing about offline
// access, and a client cannot be registered for it.
function readScopes(
  raw: string | undefined,
  responseType: OidcResponseType,
  askedConsent: boolean,
): Scope[] | undefined {
  const words = new Set((raw ?? '').split(' ').filter(Boolean));
  if (!words.has('openid')) return undefined;
  const offline = responseType.startsWith('code') && askedConsent;
  return [...words].filter(
    (w): w is Scope => (SCOPES as readonly string[]).includes(w) && (w !== 'offline_access' || offline),
  );
}

const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

// PKCE (RFC 7636) for requests that return a code: S256 only (a challenge without a method means `plain`, which
// is refused); required of public clients, accepted from every client. Requests without a code ignore it.
function readPkce(
  { values }: AuthorizeParams,
  responseType: OidcResponseType,
  client: AuthorizeClient,
): string | undefined | AuthorizeError {
  if (!responseType.startsWith('code')) return undefined;
  const challenge = values.get('code_challenge');
  const method = values.get('code_challenge_method');
  if (challenge === undefined) {
    if (method !== undefined)
      return fail('invalid_request', 'code_challenge_method was given without code_challenge.');
    if (client.isPublic)
      return fail('invalid_request', 'PKCE (code_challenge with S256) is required for this client.');
    return undefined;
  }
  if (method !== 'S256')
    return fail('invalid_request', 'code_challenge_method must be S256 (plain is not supported).');
  if (!S256_CHALLENGE.test(challenge)) {
    return fail('invalid_request', 'code_challenge must be 43 base64url characters (S256).');
  }
  return challenge;
}

// `none` stands alone (OIDC Core 3.1.2.1); every value must be known.
function readPrompt(raw: string | undefined): Set<Prompt> | undefined {
  const words = (raw ?? '').split(' ').filter(Boolean);
  if (!words.every((w) => (PROMPTS as readonly string[]).includes(w))) return undefined;
  const set = new Set(words as Prompt[]);
  if (set.has('none') && set.size > 1) return undefined;
  return set;
}

/** The first tag of a space-separated `ui_locales` list that this host speaks (by primary language). */
export function localeFromUiLocales(raw: string | undefined): Locale | undefined {
  for (const tag of (raw ?? '').toLowerCase().split(' ')) {
    if (tag === 'zh' || tag.startsWith('zh-')) return 'zh-CN';
    if (tag === 'en' || tag.startsWith('en-')) return 'en-US';
  }
  return undefined;
}
