// Pushed authorization requests (RFC 9126) over HTTP against two replicas of one issuer: /par authenticates the
// client as /token does and checks the parameters as /authorize does (JSON errors); a request_uri is used once
// (across replicas, also when uses race), only by its client, within 60 s by the host's clock; --require-par refuses
// /authorize without one; discovery names the endpoint.
import { settableClock, uniqueName } from '@svc/testkit';
import { PUSHED_REQUEST_TTL_SECONDS } from '../src/domain/pushed-request';
import {
  type OidcPagesHost,
  provisionRelyingParty,
  type RelyingPartyFixture,
  startOidcPages,
} from './pages-kit';

const clock = settableClock();
let first: OidcPagesHost;
let second: OidcPagesHost;
let rp: RelyingPartyFixture;
let publicRp: RelyingPartyFixture;
let strictRp: RelyingPartyFixture;
const REDIRECT = `https://${uniqueName('rp')}.example/cb`;
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

beforeAll(async () => {
  first = await startOidcPages({ clock });
  second = await startOidcPages({ clock, issuer: first.url });
  rp = await provisionRelyingParty(first, { redirectUris: [REDIRECT], responseTypes: ['code'] });
  publicRp = await provisionRelyingParty(first, {
    redirectUris: [REDIRECT],
    authMethod: 'none',
    responseTypes: ['code'],
  });
  strictRp = await provisionRelyingParty(first, {
    redirectUris: [REDIRECT],
    responseTypes: ['code'],
    requirePar: true,
  });
});

afterAll(async () => {
  await second?.close();
  await first?.close();
});

const basic = (c: RelyingPartyFixture) =>
  `Basic ${Buffer.from(`${c.clientId}:${c.clientSecret}`).toString('base64')}`;

/** POST /par on `host` with `form`, authenticated as `client` (Basic, or client_id for a public client). */
function push(
  client: RelyingPartyFixture,
  form: Record<string, string>,
  opts: { host?: OidcPagesHost; authorization?: string | null } = {},
) {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  const authorization =
    opts.authorization === undefined ? (client.clientSecret ? basic(client) : undefined) : opts.authorization;
  if (authorization) headers.authorization = authorization;
  const body = new URLSearchParams(client.clientSecret ? form : { client_id: client.clientId, ...form });
  return fetch(`${(opts.host ?? first).address}/par`, { method: 'POST', headers, body });
}

/** An ordinary code request of `client` (PKCE included), with `over` on top. */
const codeRequest = (over: Record<string, string> = {}) => ({
  response_type: 'code',
  redirect_uri: REDIRECT,
  scope: 'openid email',
  state: 'st-1',
  code_challenge: CHALLENGE,
  code_challenge_method: 'S256',
  ...over,
});

async function pushed(client: RelyingPartyFixture, over: Record<string, string> = {}): Promise<string> {
  const res = await push(client, codeRequest(over));
  expect(res.status).toBe(201);
  const body = (await res.json()) as { request_uri: string; expires_in: number };
  expect(body.expires_in).toBe(PUSHED_REQUEST_TTL_SECONDS);
  expect(body.request_uri).toMatch(/^urn:ietf:params:oauth:request_uri:[A-Za-z0-9_-]{43}$/);
  expect(res.headers.get('cache-control')).toBe('no-store');
  return body.request_uri;
}

/** GET /authorize on `host` with `query`, not following the redirect. */
const authorize = (query: Record<string, string>, host = first) =>
  fetch(`${host.address}/authorize?${new URLSearchParams(query)}`, {
    redirect: 'manual',
    headers: { 'accept-language': 'en-US' },
  });

/** The request was taken: the browser goes to the sign-in pages. */
async function expectParked(res: Response) {
  expect(res.status).toBe(303);
  expect(res.headers.get('location')).toMatch(/^\/interaction\/[A-Za-z0-9_-]{43}$/);
}

/** Refused with the error page: nothing redirected anywhere. */
async function expectRefusedPage(res: Response) {
  expect(res.status).toBe(400);
  expect(res.headers.get('location')).toBeNull();
  expect(res.headers.get('content-type')).toMatch(/text\/html/);
}

test('discovery names the endpoint; no server-wide requirement', async () => {
  const doc = (await (await fetch(`${first.address}/.well-known/openid-configuration`)).json()) as Record<
    string,
    unknown
  >;
  expect(doc.pushed_authorization_request_endpoint).toBe(`${first.url}/par`);
  expect(doc.require_pushed_authorization_requests).toBe(false);
});

describe('a request_uri is used once, by its client, within 60 s', () => {
  test('a confidential client (Basic) and a public client (client_id) push; /authorize takes the request once', async () => {
    for (const client of [rp, publicRp]) {
      const uri = await pushed(client);
      await expectParked(await authorize({ client_id: client.clientId, request_uri: uri }));
      // Replay, on this replica and on the other.
      await expectRefusedPage(await authorize({ client_id: client.clientId, request_uri: uri }));
      await expectRefusedPage(await authorize({ client_id: client.clientId, request_uri: uri }, second));
    }
  });

  test('the pushed parameters are the request: a redirect_uri added in the URL is ignored', async () => {
    const uri = await pushed(rp, { state: 'pushed-state', prompt: 'none' });
    const res = await authorize({
      client_id: rp.clientId,
      request_uri: uri,
      redirect_uri: 'https://attacker.example/cb',
      state: 'url-state',
    });
    // prompt=none without a sign-in: the page answers login_required at the pushed redirect URI, pushed state.
    await expectParked(res);
    const page = await fetch(`${first.address}${res.headers.get('location')}`, { redirect: 'manual' });
    expect(page.status).toBe(303);
    const location = new URL(page.headers.get('location') as string);
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
    expect(location.searchParams.get('error')).toBe('login_required');
    expect(location.searchParams.get('state')).toBe('pushed-state');
  });

  test("another client's request_uri is refused, and stays usable by its own client", async () => {
    const uri = await pushed(rp);
    await expectRefusedPage(await authorize({ client_id: publicRp.clientId, request_uri: uri }));
    await expectRefusedPage(await authorize({ client_id: 'oidc_nobody', request_uri: uri }));
    await expectRefusedPage(await authorize({ request_uri: uri }));
    await expectParked(await authorize({ client_id: rp.clientId, request_uri: uri }, second));
  });

  test('an unknown or malformed request_uri is refused', async () => {
    await expectRefusedPage(
      await authorize({
        client_id: rp.clientId,
        request_uri: `urn:ietf:params:oauth:request_uri:${'A'.repeat(43)}`,
      }),
    );
    await expectRefusedPage(
      await authorize({ client_id: rp.clientId, request_uri: 'https://rp.example/request.jwt' }),
    );
  });

  test('expired by the host clock after 60 s', async () => {
    const late = await pushed(rp);
    const inTime = await pushed(rp);
    clock.advance((PUSHED_REQUEST_TTL_SECONDS - 1) * 1000);
    await expectParked(await authorize({ client_id: rp.clientId, request_uri: inTime }));
    clock.advance(1000);
    await expectRefusedPage(await authorize({ client_id: rp.clientId, request_uri: late }, second));
  });

  test('uses racing on two replicas: exactly one wins', async () => {
    const uri = await pushed(rp);
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        authorize({ client_id: rp.clientId, request_uri: uri }, i % 2 ? second : first),
      ),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([303, 400, 400, 400, 400, 400, 400, 400]);
  });
});

describe('/par authenticates the client as /token does', () => {
  test.each([
    ['no credentials at all', () => null],
    ['a wrong secret', () => `Basic ${Buffer.from(`${rp.clientId}:wrong`).toString('base64')}`],
  ])('%s: 401 invalid_client', async (_name, authorization) => {
    const res = await push(rp, codeRequest(), { authorization: authorization() });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: string }).error).toBe('invalid_client');
  });

  test('a confidential client cannot push as public (client_id alone): 401', async () => {
    const res = await push(rp, { client_id: rp.clientId, ...codeRequest() }, { authorization: null });
    expect(res.status).toBe(401);
  });

  test('a client_id in the form other than the authenticated one: invalid_request', async () => {
    const res = await push(rp, { client_id: publicRp.clientId, ...codeRequest() });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe('invalid_request');
  });
});

describe('bad parameters are refused at /par as JSON, and nothing is pushed', () => {
  test.each([
    ['no redirect_uri', 'rp', { redirect_uri: '' }, 'invalid_request'],
    [
      'an unregistered redirect_uri',
      'rp',
      { redirect_uri: 'https://attacker.example/cb' },
      'invalid_request',
    ],
    ['no openid scope', 'rp', { scope: 'email' }, 'invalid_scope'],
    ['an unknown response_type', 'rp', { response_type: 'code token_x' }, 'unsupported_response_type'],
    [
      'a response_type the client did not register',
      'rp',
      { response_type: 'id_token', nonce: 'n' },
      'unauthorized_client',
    ],
    ['PKCE plain', 'rp', { code_challenge_method: 'plain' }, 'invalid_request'],
    [
      'a public client without PKCE',
      'publicRp',
      { code_challenge: '', code_challenge_method: '' },
      'invalid_request',
    ],
    ['a request object', 'rp', { request: 'eyJhbGciOiJub25lIn0.e30.' }, 'request_not_supported'],
    [
      'a request_uri of its own',
      'rp',
      { request_uri: 'urn:ietf:params:oauth:request_uri:x' },
      'invalid_request',
    ],
    ['a bad prompt', 'rp', { prompt: 'none login' }, 'invalid_request'],
  ])('%s: %s', async (_name, client, over, error) => {
    const form = Object.fromEntries(
      Object.entries(codeRequest(over as Record<string, string>)).filter(([, v]) => v !== ''),
    );
    const res = await push(client === 'rp' ? rp : publicRp, form);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: string; error_description?: string };
    expect(body.error).toBe(error);
    expect(body).not.toHaveProperty('request_uri');
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  test('a repeated parameter: invalid_request', async () => {
    const body = `${new URLSearchParams(codeRequest())}&scope=openid`;
    const res = await fetch(`${first.address}/par`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(rp) },
      body,
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe('invalid_request');
  });
});

describe('--require-par', () => {
  test('/authorize without a request_uri: invalid_request at the redirect URI, nothing parked', async () => {
    const res = await authorize({ client_id: strictRp.clientId, ...codeRequest() });
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get('location') as string);
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
    expect(location.searchParams.get('error')).toBe('invalid_request');
    expect(location.searchParams.get('state')).toBe('st-1');
    expect(location.searchParams.get('iss')).toBe(first.url);
  });

  test('POST /authorize is held to the same rule, and takes a request_uri too', async () => {
    const post = (form: Record<string, string>) =>
      fetch(`${first.address}/authorize`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'accept-language': 'en-US' },
        body: new URLSearchParams(form),
      });
    const refused = await post({ client_id: strictRp.clientId, ...codeRequest() });
    expect(refused.status).toBe(303);
    expect(new URL(refused.headers.get('location') as string).searchParams.get('error')).toBe(
      'invalid_request',
    );
    const uri = await pushed(strictRp);
    await expectParked(await post({ client_id: strictRp.clientId, request_uri: uri }));
  });

  test('with a pushed request it is served', async () => {
    const uri = await pushed(strictRp);
    await expectParked(await authorize({ client_id: strictRp.clientId, request_uri: uri }));
  });
});
