// The /authorize request rules: untrusted client or redirect URI -> page; later errors -> the client, in the right
// response mode, with state; every parameter rule of OIDC Core 3.1.2.1 / 3.2.2.1 / 3.3.2.1 and RFC 7636.

import { OIDC_RESPONSE_TYPES, parseResponseType } from '@svc/token-core';
import {
  type AuthorizeClient,
  type AuthorizeOutcome,
  localeFromUiLocales,
  readAuthorizeParams,
  requestedClientId,
  validateAuthorizeRequest,
} from '../src/domain/authorize-request';

const REDIRECT = 'https://rp.example/cb';
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

const confidential: AuthorizeClient = {
  clientId: 'client-a',
  redirectUris: [REDIRECT, 'https://rp.example/cb?tenant=1'],
  responseTypes: [...OIDC_RESPONSE_TYPES],
  isPublic: false,
};
const publicClient: AuthorizeClient = { ...confidential, clientId: 'client-p', isPublic: true };

function run(
  query: string | [string, string][],
  client: AuthorizeClient | undefined = confidential,
): AuthorizeOutcome<AuthorizeClient> {
  const pairs = typeof query === 'string' ? [...new URLSearchParams(query)] : query;
  const params = readAuthorizeParams(pairs);
  const found = client && requestedClientId(params) === client.clientId ? client : undefined;
  return validateAuthorizeRequest(params, found);
}

function q(over: Record<string, string | undefined>): string {
  const base: Record<string, string | undefined> = {
    client_id: 'client-a',
    redirect_uri: REDIRECT,
    response_type: 'code',
    scope: 'openid',
    state: 'st-1',
    ...over,
  };
  return new URLSearchParams(
    Object.entries(base).filter((e): e is [string, string] => e[1] !== undefined),
  ).toString();
}

function redirectError(outcome: AuthorizeOutcome<AuthorizeClient>) {
  if (outcome.kind !== 'redirect')
    throw new Error(`expected a redirect error, got ${JSON.stringify(outcome)}`);
  return outcome;
}

describe('before the redirect URI is trusted: an error page, never a redirect', () => {
  test.each([
    ['client_id missing', q({ client_id: undefined }), 'invalid_request'],
    ['client_id unknown', q({ client_id: 'nobody' }), 'invalid_client'],
    ['client_id repeated', `${q({})}&client_id=client-a`, 'invalid_request'],
    ['redirect_uri missing', q({ redirect_uri: undefined }), 'invalid_request'],
    ['redirect_uri repeated', `${q({})}&redirect_uri=${encodeURIComponent(REDIRECT)}`, 'invalid_request'],
    [
      'redirect_uri with a different path',
      q({ redirect_uri: 'https://rp.example/cb2' }),
      'invalid_redirect_uri',
    ],
    [
      'redirect_uri with a trailing slash',
      q({ redirect_uri: 'https://rp.example/cb/' }),
      'invalid_redirect_uri',
    ],
    [
      'redirect_uri with a different case',
      q({ redirect_uri: 'https://RP.example/cb' }),
      'invalid_redirect_uri',
    ],
    ['redirect_uri with an added query', q({ redirect_uri: `${REDIRECT}?x=1` }), 'invalid_redirect_uri'],
    ['redirect_uri with a fragment', q({ redirect_uri: `${REDIRECT}#x` }), 'invalid_redirect_uri'],
    ['redirect_uri over http', q({ redirect_uri: 'http://rp.example/cb' }), 'invalid_redirect_uri'],
    ['redirect_uri with a port', q({ redirect_uri: 'https://rp.example:443/cb' }), 'invalid_redirect_uri'],
    [
      'redirect_uri percent-encoded differently',
      q({ redirect_uri: 'https://rp.example/%63b' }),
      'invalid_redirect_uri',
    ],
    // Even when everything else is wrong too, the page wins: nothing is sent to an untrusted URI.
    [
      'bad URI and bad response type',
      q({ redirect_uri: 'https://evil.example/cb', response_type: 'x' }),
      'invalid_redirect_uri',
    ],
  ])('%s', (_name, query, error) => {
    const outcome = run(query);
    expect(outcome).toEqual({ kind: 'page', error: { error, description: expect.any(String) } });
  });

  test('a registered URI with its own query matches exactly', () => {
    expect(run(q({ redirect_uri: 'https://rp.example/cb?tenant=1' })).kind).toBe('valid');
    expect(run(q({ redirect_uri: 'https://rp.example/cb?tenant=2' })).kind).toBe('page');
  });
});

describe('a valid request', () => {
  test('code with state and defaults', () => {
    const outcome = run(
      q({ scope: 'openid profile email unknown offline_access openid', prompt: 'consent' }),
    );
    expect(outcome).toEqual({
      kind: 'valid',
      request: expect.objectContaining({
        client: confidential,
        redirectUri: REDIRECT,
        responseType: 'code',
        responseMode: 'query',
        scopes: ['openid', 'profile', 'email', 'offline_access'],
        state: 'st-1',
        prompt: new Set(['consent']),
      }),
    });
  });

  test.each([
    ['id_token', 'id_token', 'fragment'],
    ['token id_token', 'id_token token', 'fragment'],
    ['id_token code', 'code id_token', 'fragment'],
    ['token code id_token', 'code id_token token', 'fragment'],
    ['code', 'code', 'query'],
  ])('response_type %s -> %s, default mode %s', (raw, canonical, mode) => {
    const outcome = run(q({ response_type: raw, nonce: 'n-1' }));
    expect(outcome.kind === 'valid' && outcome.request).toMatchObject({
      responseType: canonical,
      responseMode: mode,
    });
  });

  test('every parameter read', () => {
    const outcome = run(
      q({
        response_type: 'code id_token',
        response_mode: 'form_post',
        nonce: 'n-2',
        code_challenge: CHALLENGE,
        code_challenge_method: 'S256',
        prompt: 'login consent',
        max_age: '0',
        ui_locales: 'fr-CA zh-Hans en',
        login_hint: 'someone@example.com',
        id_token_hint: 'eyJ.x.y',
        display: 'popup',
      }),
    );
    expect(outcome.kind === 'valid' && outcome.request).toMatchObject({
      responseMode: 'form_post',
      nonce: 'n-2',
      codeChallenge: CHALLENGE,
      prompt: new Set(['login', 'consent']),
      maxAge: 0,
      uiLocale: 'zh-CN',
      loginHint: 'someone@example.com',
      idTokenHint: 'eyJ.x.y',
    });
  });

  test('offline_access is dropped when no code is returned; empty parameters count as omitted', () => {
    const outcome = run(
      q({ response_type: 'id_token', nonce: 'n', scope: 'openid offline_access', prompt: '' }),
    );
    expect(outcome.kind === 'valid' && outcome.request.scopes).toEqual(['openid']);
  });

  // OIDC Core 11: offline access needs the person's consent, asked for with prompt=consent; without it the
  // request is served as if offline_access had not been asked for (no refresh token), never refused.
  test.each([
    ['no prompt', undefined, ['openid', 'email']],
    ['prompt=login', 'login', ['openid', 'email']],
    ['prompt=select_account', 'select_account', ['openid', 'email']],
    ['prompt=none', 'none', ['openid', 'email']],
    ['prompt=consent', 'consent', ['openid', 'offline_access', 'email']],
    ['prompt=login consent', 'login consent', ['openid', 'offline_access', 'email']],
  ])('offline_access with %s', (_name, prompt, scopes) => {
    const outcome = run(q({ scope: 'openid offline_access email', prompt }));
    expect(outcome.kind === 'valid' && outcome.request.scopes).toEqual(scopes);
  });

  test('PKCE is accepted from a confidential client and ignored without a code', () => {
    const withCode = run(q({ code_challenge: CHALLENGE, code_challenge_method: 'S256' }));
    expect(withCode.kind === 'valid' && withCode.request.codeChallenge).toBe(CHALLENGE);
    const idToken = run(
      q({ response_type: 'id_token', nonce: 'n', code_challenge: 'x', code_challenge_method: 'plain' }),
    );
    expect(idToken.kind === 'valid' && idToken.request.codeChallenge).toBeUndefined();
  });

  test('a public client with S256', () => {
    const outcome = run(
      q({ client_id: 'client-p', code_challenge: CHALLENGE, code_challenge_method: 'S256' }),
      publicClient,
    );
    expect(outcome.kind).toBe('valid');
  });
});

describe('errors sent to the client', () => {
  test.each([
    ['response_type missing', { response_type: undefined }, 'invalid_request'],
    ['response_type token alone', { response_type: 'token' }, 'unsupported_response_type'],
    ['response_type code token', { response_type: 'code token' }, 'unsupported_response_type'],
    ['response_type repeated word', { response_type: 'code code' }, 'unsupported_response_type'],
    ['response_type none', { response_type: 'none' }, 'unsupported_response_type'],
    ['scope missing', { scope: undefined }, 'invalid_scope'],
    ['scope without openid', { scope: 'profile email' }, 'invalid_scope'],
    ['scope with OpenID in another case', { scope: 'OpenID' }, 'invalid_scope'],
    ['PKCE plain', { code_challenge: CHALLENGE, code_challenge_method: 'plain' }, 'invalid_request'],
    ['PKCE challenge without a method (means plain)', { code_challenge: CHALLENGE }, 'invalid_request'],
    ['PKCE method without a challenge', { code_challenge_method: 'S256' }, 'invalid_request'],
    [
      'PKCE challenge of the wrong length',
      { code_challenge: CHALLENGE.slice(1), code_challenge_method: 'S256' },
      'invalid_request',
    ],
    [
      'PKCE challenge with padding',
      { code_challenge: `${CHALLENGE.slice(1)}=`, code_challenge_method: 'S256' },
      'invalid_request',
    ],
    ['prompt none with login', { prompt: 'none login' }, 'invalid_request'],
    ['prompt unknown', { prompt: 'create' }, 'invalid_request'],
    ['max_age negative', { max_age: '-1' }, 'invalid_request'],
    ['max_age fractional', { max_age: '1.5' }, 'invalid_request'],
    ['max_age huge', { max_age: '99999999999' }, 'invalid_request'],
    ['display unknown', { display: 'tv' }, 'invalid_request'],
    ['response_mode unknown', { response_mode: 'web_message' }, 'invalid_request'],
    ['request object', { request: 'eyJ.e30.' }, 'request_not_supported'],
    ['request_uri', { request_uri: 'https://rp.example/r' }, 'request_uri_not_supported'],
    ['registration', { registration: '{}' }, 'registration_not_supported'],
    ['nonce too long', { nonce: 'n'.repeat(4097) }, 'invalid_request'],
    ['nonce with NUL', { nonce: 'a\u0000b' }, 'invalid_request'],
  ])('%s -> %s with state', (_name, over, error) => {
    const outcome = redirectError(run(q(over)));
    expect(outcome.error.error).toBe(error);
    // A response type naming a token (even one not served) gets its errors in the fragment, never the query.
    const responseMode = /token/.test((over as { response_type?: string }).response_type ?? '')
      ? 'fragment'
      : 'query';
    expect(outcome.target).toEqual({ redirectUri: REDIRECT, responseMode, state: 'st-1' });
  });

  test.each(['id_token', 'id_token token', 'code id_token', 'code id_token token'])(
    'nonce missing for %s -> invalid_request in the fragment',
    (responseType) => {
      const outcome = redirectError(run(q({ response_type: responseType })));
      expect(outcome.error.error).toBe('invalid_request');
      expect(outcome.error.description).toMatch(/nonce/);
      expect(outcome.target.responseMode).toBe('fragment');
    },
  );

  test('a code-only request may omit nonce', () => {
    expect(run(q({ nonce: undefined })).kind).toBe('valid');
  });

  test('a public client without PKCE', () => {
    const outcome = redirectError(run(q({ client_id: 'client-p' }), publicClient));
    expect(outcome.error.error).toBe('invalid_request');
    expect(outcome.error.description).toMatch(/PKCE/);
  });

  test('a response type the client did not register -> unauthorized_client', () => {
    const codeOnly = { ...confidential, responseTypes: ['code' as const] };
    const outcome = redirectError(run(q({ response_type: 'id_token', nonce: 'n' }), codeOnly));
    expect(outcome.error.error).toBe('unauthorized_client');
    expect(outcome.target.responseMode).toBe('fragment');
  });

  test('response_mode query is refused for token-bearing types, and the error goes in the fragment', () => {
    const outcome = redirectError(
      run(q({ response_type: 'code id_token', nonce: 'n', response_mode: 'query' })),
    );
    expect(outcome.error.error).toBe('invalid_request');
    expect(outcome.target.responseMode).toBe('fragment');
  });

  test('errors use a valid requested response mode', () => {
    const outcome = redirectError(run(q({ response_mode: 'form_post', scope: 'profile' })));
    expect(outcome.target.responseMode).toBe('form_post');
    const fragment = redirectError(run(q({ response_mode: 'fragment', scope: 'profile' })));
    expect(fragment.target.responseMode).toBe('fragment');
  });

  test.each([
    'state',
    'nonce',
    'scope',
    'response_type',
    'prompt',
    'code_challenge',
    'max_age',
    'response_mode',
  ])('a repeated %s is refused', (name) => {
    const outcome = redirectError(run(`${q({ nonce: 'n' })}&${name}=x&${name}=y`));
    expect(outcome.error).toEqual({ error: 'invalid_request', description: expect.stringContaining(name) });
  });

  test('a repeated state is not echoed; an over-long state is not echoed', () => {
    expect(redirectError(run(`${q({})}&state=other`)).target.state).toBeUndefined();
    const long = redirectError(run(q({ state: 's'.repeat(4097) })));
    expect(long.target.state).toBeUndefined();
    expect(long.error.error).toBe('invalid_request');
  });

  test('unknown parameters may repeat (extensions are ignored)', () => {
    expect(run(`${q({})}&foo=1&foo=2`).kind).toBe('valid');
  });

  test('descriptions never echo request input', () => {
    const marker = '<script>alert(1)</script>';
    for (const over of [
      { response_type: marker },
      { prompt: marker },
      { response_mode: marker },
      { max_age: marker },
    ]) {
      expect(JSON.stringify(run(q(over)))).not.toContain('<script>');
    }
  });
});

test('parseResponseType: word order is free, the result canonical', () => {
  expect(parseResponseType('token id_token code')).toBe('code id_token token');
  expect(parseResponseType('id_token  token')).toBe('id_token token');
  expect(parseResponseType('')).toBeUndefined();
  expect(parseResponseType('code id_token token extra')).toBeUndefined();
});

test('localeFromUiLocales: the first spoken tag wins', () => {
  expect(localeFromUiLocales('de fr')).toBeUndefined();
  expect(localeFromUiLocales(undefined)).toBeUndefined();
  expect(localeFromUiLocales('de en-GB zh')).toBe('en-US');
  expect(localeFromUiLocales('ZH-TW en')).toBe('zh-CN');
});
