// The OAuth table against the spec and the RFCs it cites: every code has a status, device polling errors are the
// spec's and 400 (server_error 500, its outage variant a 503 with Retry-After), invalid_token is a Bearer 401;
// OAuthError takes its status and headers from the table.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { OAuthError } from './errors';
import {
  BEARER_HEADERS,
  OAUTH_ANSWERS,
  OAUTH_VARIANT_ANSWERS,
  type OAuthCode,
  oauthAnswerOf,
} from './oauth-answers';

const SPEC = path.resolve(__dirname, '../../../../shared/spec/interface-spec.md');

/** The codes of the spec's "Device polling errors" table. */
function specPollingCodes(): string[] {
  const text = readFileSync(SPEC, 'utf8');
  const start = text.indexOf('Device polling errors');
  expect(start).toBeGreaterThan(-1);
  const table = text.slice(start, text.indexOf('\n\n', text.indexOf('|---', start)));
  return table
    .split('\n')
    .filter((l) => l.startsWith('| ') && !l.startsWith('| error'))
    .map((l) => l.split('|')[1]!.trim());
}

describe('OAUTH_ANSWERS', () => {
  test('every code has a client or server status', () => {
    const codes = Object.keys(OAUTH_ANSWERS) as OAuthCode[];
    expect(codes.length).toBeGreaterThan(10);
    for (const code of codes) {
      const { status } = OAUTH_ANSWERS[code];
      expect([code, Number.isInteger(status) && status >= 400 && status < 600]).toEqual([code, true]);
    }
  });

  test("the spec's device polling errors are all in the table: 400, and server_error 500", () => {
    const codes = specPollingCodes();
    // The table's six rows, server_error among them (RFC 8628 section 3.5's four, invalid_request, server_error).
    expect([codes.length, codes.includes('server_error')]).toEqual([6, true]);
    for (const code of codes.filter((c) => c !== 'server_error')) {
      expect([code, oauthAnswerOf(code as OAuthCode).status]).toEqual([code, 400]);
    }
    expect(oauthAnswerOf('server_error')).toEqual({ status: 500, headers: {} });
  });

  test('a dependency outage is server_error as a 503 with Retry-After, only in its variant', () => {
    expect(oauthAnswerOf('server_error', 'outage')).toEqual({ status: 503, headers: { 'Retry-After': '1' } });
    // A code without the variant answers as itself.
    expect(oauthAnswerOf('invalid_request', 'outage')).toEqual(OAUTH_ANSWERS.invalid_request);
    expect(Object.keys(OAUTH_VARIANT_ANSWERS)).toEqual(['server_error', 'slow_down', 'invalid_dpop_proof']);
  });

  test('a per-address limit outside polling is slow_down as a 429, only in its variant', () => {
    expect(oauthAnswerOf('slow_down', 'rateLimited')).toEqual({ status: 429, headers: {} });
    expect(oauthAnswerOf('slow_down')).toEqual({ status: 400, headers: {} });
    expect(oauthAnswerOf('server_error', 'rateLimited')).toEqual(OAUTH_ANSWERS.server_error);
  });

  test('a DPoP proof refused is 400 at the token endpoint, 401 at a resource (RFC 9449 5, 7.1)', () => {
    // RFC 9449: 400 at the token endpoint, 401 at a resource, whose answer is never stored either.
    expect(oauthAnswerOf('invalid_dpop_proof').status).toBe(400);
    expect(oauthAnswerOf('invalid_dpop_proof', 'resource')).toEqual({ status: 401, headers: BEARER_HEADERS });
  });

  test('RFC 6749 5.2 / RFC 6750 3.1: invalid_client and invalid_token are 401, the Bearer one never stored', () => {
    expect(OAUTH_ANSWERS.invalid_client.status).toBe(401);
    expect(OAUTH_ANSWERS.invalid_token).toEqual({
      status: 401,
      headers: { 'Cache-Control': 'no-store', Pragma: 'no-cache', Vary: 'Authorization' },
    });
    for (const code of [
      'invalid_grant',
      'unauthorized_client',
      'unsupported_grant_type',
      'invalid_scope',
    ] as const) {
      expect([code, OAUTH_ANSWERS[code].status]).toEqual([code, 400]);
    }
    expect(OAUTH_ANSWERS.temporarily_unavailable).toEqual({ status: 503, headers: { 'Retry-After': '5' } });
  });
});

describe('OAuthError takes its answer from the table', () => {
  test('a code alone: its status and headers; a description becomes error_description', () => {
    const e = new OAuthError('invalid_grant', { description: 'the code was used' });
    expect([e.status, e.error, e.extra, e.headers]).toEqual([
      400,
      'invalid_grant',
      { error_description: 'the code was used' },
      {},
    ]);
  });

  test("a site's own header is added to the table's, and a variant picks its answer", () => {
    const bearer = new OAuthError('invalid_token', { headers: { 'WWW-Authenticate': 'Bearer realm="x"' } });
    expect([bearer.status, bearer.headers]).toEqual([
      401,
      { ...OAUTH_ANSWERS.invalid_token.headers, 'WWW-Authenticate': 'Bearer realm="x"' },
    ]);
    const outage = new OAuthError('server_error', { variant: 'outage' });
    expect([outage.status, outage.headers, outage.extra]).toEqual([503, { 'Retry-After': '1' }, {}]);
    expect(new OAuthError('server_error').status).toBe(500);
  });
});
