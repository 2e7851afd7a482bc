// Dynamic client registration (RFC 7591) over HTTP against two replicas with OIDC_REGISTRATION=initial-access-token:
// stock oauth4webapi 3 and openid-client 6 register with an initial access token; the client is an ordinary client
// of the token's application (listed, same rules as `oidc-client create`); missing, wrong, spent, expired and
// revoked tokens are 401; bad metadata is 400 and spends nothing; uses racing across replicas never over-spend;
// the per-address limit; a host with registration off serves no /register and does not advertise it.
import {
  createRegistrationToken,
  deleteOidcClient,
  listOidcClients,
  listRegistrationTokens,
  revokeRegistrationToken,
  setOidcClient,
} from '@svc/provisioning';
import { provisionApp, settableClock, uniqueName } from '@svc/testkit';
import * as oauth from 'oauth4webapi';
import * as client from 'openid-client';
import { type OidcPagesHost, startOidcPages } from './pages-kit';

const clock = settableClock();
const ON = { OIDC_REGISTRATION: 'initial-access-token', OIDC_REGISTRATION_RATE_PER_MINUTE: '1000' };
let first: OidcPagesHost;
let second: OidcPagesHost;
let anchor: string;
const REDIRECT = `https://${uniqueName('agent')}.example/cb`;
const DEVICE = 'urn:ietf:params:oauth:grant-type:device_code';

beforeAll(async () => {
  first = await startOidcPages({ clock, env: ON });
  second = await startOidcPages({ clock, env: ON, issuer: first.url });
  anchor = (await provisionApp(first.infra, { methods: ['OIDC', 'PASSKEY_USERNAMELESS'] })).anchor;
});

afterAll(async () => {
  await second?.close();
  await first?.close();
});

async function token(uses = 1, expiresInHours?: number) {
  return createRegistrationToken(
    first.infra.provisioning,
    { anchor, uses, expiresInHours },
    new Date(clock()),
  );
}

function register(body: unknown, authorization?: string, host = first) {
  return fetch(`${host.address}/register`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(authorization !== undefined ? { authorization } : {}),
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

const usesLeft = async (id: string) =>
  (await listRegistrationTokens(first.infra.provisioning, anchor)).registrationTokens.find((t) => t.id === id)
    ?.usesLeft;

test('discovery names registration_endpoint', async () => {
  const doc = (await (await fetch(`${first.address}/.well-known/openid-configuration`)).json()) as {
    registration_endpoint?: string;
  };
  expect(doc.registration_endpoint).toBe(`${first.url}/register`);
});

test('oauth4webapi 3: a confidential client registers; it is an ordinary client of the token’s application', async () => {
  const { token: iat } = await token();
  const issuer = new URL(first.url);
  const insecure = { [oauth.allowInsecureRequests]: true };
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
  const name = uniqueName('Harbor Agent');
  const registered = await oauth.processDynamicClientRegistrationResponse(
    await oauth.dynamicClientRegistrationRequest(
      as,
      { redirect_uris: [REDIRECT], client_name: name, grant_types: ['authorization_code', 'refresh_token'] },
      { ...insecure, initialAccessToken: iat },
    ),
  );
  expect(registered).toMatchObject({
    client_id: expect.stringMatching(/^oidc_/),
    client_secret: expect.stringMatching(/^oidcs_[0-9a-f]{64}$/),
    client_secret_expires_at: 0,
    client_id_issued_at: Math.floor(clock() / 1000),
    token_endpoint_auth_method: 'client_secret_basic',
    redirect_uris: [REDIRECT],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    client_name: name,
    require_pushed_authorization_requests: false,
  });
  const { clients } = await listOidcClients(first.infra.provisioning, anchor);
  expect(clients.find((c) => c.clientId === registered.client_id)).toMatchObject({
    applicationAnchor: anchor,
    authMethod: 'client_secret_basic',
    status: 'ACTIVE',
    redirectUris: [REDIRECT],
    responseTypes: ['code'],
    grantTypes: ['authorization_code'],
    clientName: name,
  });
  // The secret authenticates at /par (client authentication as at /token) on the other replica.
  const par = await fetch(`${second.address}/par`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${registered.client_id}:${registered.client_secret}`).toString('base64')}`,
    },
    body: new URLSearchParams({ response_type: 'code', redirect_uri: REDIRECT, scope: 'openid' }),
  });
  expect(par.status).toBe(201);
});

test('dpop_bound_access_tokens: the client is registered --require-dpop; the registration is audited as the token', async () => {
  const { token: iat, registrationToken } = await token();
  const res = await register(
    { redirect_uris: [REDIRECT], dpop_bound_access_tokens: true },
    `Bearer ${iat}`,
    second,
  );
  expect(res.status).toBe(201);
  const body = (await res.json()) as { client_id: string; dpop_bound_access_tokens: boolean };
  expect(body.dpop_bound_access_tokens).toBe(true);
  const { clients } = await listOidcClients(first.infra.provisioning, anchor);
  expect(clients.find((c) => c.clientId === body.client_id)).toMatchObject({ requireDpop: true });
  const rows = await first.infra.db.auditEvent.findMany({
    where: { action: 'oidc_client.register', targetId: body.client_id },
  });
  expect(rows).toHaveLength(1);
  expect(rows[0]).toMatchObject({
    actorKind: 'registration_token',
    actorId: registrationToken.id,
    targetType: 'oidc_client',
    sourceAddress: expect.any(String),
  });
  const changes = rows[0]!.changes as Record<string, { from: unknown; to: unknown }>;
  expect(changes.application).toEqual({ from: null, to: anchor });
  expect(changes.requireDpop).toEqual({ from: null, to: true });
  expect(changes.secret).toEqual({ from: null, to: '<redacted>' });
  expect(JSON.stringify(changes)).not.toMatch(/oidcs_/);
});

test('backchannel_logout_uri: registered (OIDC Back-Channel Logout), answered with session_required, listed', async () => {
  const { token: iat } = await token();
  const uri = 'http://127.0.0.1:9/backchannel';
  const res = await register({ redirect_uris: [REDIRECT], backchannel_logout_uri: uri }, `Bearer ${iat}`);
  expect(res.status).toBe(201);
  const body = (await res.json()) as Record<string, unknown>;
  expect(body).toMatchObject({ backchannel_logout_uri: uri, backchannel_logout_session_required: true });
  const { clients } = await listOidcClients(first.infra.provisioning, anchor);
  expect(clients.find((c) => c.clientId === body.client_id)).toMatchObject({ backchannelLogoutUri: uri });
});

test('openid-client 6: a public client registers and gets a Configuration; no secret', async () => {
  const { token: iat } = await token();
  const config = await client.dynamicClientRegistration(
    new URL(first.url),
    {
      redirect_uris: ['http://localhost:8080/cb'],
      token_endpoint_auth_method: 'none',
      require_pushed_authorization_requests: true,
    },
    client.None(),
    { initialAccessToken: iat, execute: [client.allowInsecureRequests] },
  );
  const metadata = config.clientMetadata();
  expect(metadata.client_id).toMatch(/^oidc_/);
  expect(metadata.client_secret).toBeUndefined();
  expect(metadata.require_pushed_authorization_requests).toBe(true);
  const { clients } = await listOidcClients(first.infra.provisioning, anchor);
  expect(clients.find((c) => c.clientId === metadata.client_id)).toMatchObject({
    authMethod: 'none',
    requirePar: true,
  });
});

test('a registered client is managed like any other: set, then delete stops it at /par', async () => {
  const { token: iat } = await token();
  const res = await register({ redirect_uris: [REDIRECT] }, `Bearer ${iat}`);
  const { client_id, client_secret } = (await res.json()) as { client_id: string; client_secret: string };
  const other = `https://${uniqueName('moved')}.example/cb`;
  const set = await setOidcClient(first.infra.provisioning, client_id, { redirectUris: [other] });
  expect(set.client).toMatchObject({ redirectUris: [other], status: 'ACTIVE' });
  await deleteOidcClient(first.infra.provisioning, client_id);
  first.deps.ports.clients.clear();
  const par = await fetch(`${first.address}/par`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${client_id}:${client_secret}`).toString('base64')}`,
    },
    body: new URLSearchParams({ response_type: 'code', redirect_uri: other, scope: 'openid' }),
  });
  expect(par.status).toBe(401);
});

describe('a missing, wrong, spent, expired or revoked token is 401 and registers nothing', () => {
  const body = () => ({ redirect_uris: [REDIRECT] });
  const expect401 = async (res: Response, withError = true) => {
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: string }).error).toBe('invalid_token');
    const challenge = res.headers.get('www-authenticate') as string;
    expect(challenge).toMatch(/^Bearer realm="oidc"/);
    expect(challenge.includes('error="invalid_token"')).toBe(withError);
  };
  const count = async () => (await listOidcClients(first.infra.provisioning, anchor)).clients.length;

  test('missing and malformed', async () => {
    const before = await count();
    await expect401(await register(body()), false);
    await expect401(await register(body(), 'Basic b2lkYzp4'));
    await expect401(await register(body(), 'Bearer '));
    expect(await count()).toBe(before);
  });

  test('wrong (a token this server never issued, or a tampered one)', async () => {
    const { token: iat } = await token();
    await expect401(await register(body(), `Bearer oirt_${'A'.repeat(43)}`));
    await expect401(await register(body(), `Bearer ${iat.slice(0, -1)}${iat.endsWith('A') ? 'B' : 'A'}`));
  });

  test('spent: one use, the second registration is refused on the other replica', async () => {
    const { token: iat, registrationToken } = await token(1);
    expect((await register(body(), `Bearer ${iat}`)).status).toBe(201);
    await expect401(await register(body(), `Bearer ${iat}`, second));
    expect(await usesLeft(registrationToken.id)).toBe(0);
  });

  test('expired by the host clock', async () => {
    const { token: iat } = await token(5, 1);
    clock.advance(3600_000);
    await expect401(await register(body(), `Bearer ${iat}`));
  });

  test('revoked', async () => {
    const { token: iat, registrationToken } = await token(5);
    await revokeRegistrationToken(first.infra.provisioning, registrationToken.id, new Date(clock()));
    await expect401(await register(body(), `Bearer ${iat}`));
  });
});

describe('bad metadata: 400 with RFC 7591 errors, nothing spent', () => {
  test.each([
    ['no redirect_uris', { redirect_uris: undefined }, 'invalid_redirect_uri'],
    [
      'an http redirect URI off loopback',
      { redirect_uris: ['http://agent.example/cb'] },
      'invalid_redirect_uri',
    ],
    [
      'a redirect URI with a fragment',
      { redirect_uris: ['https://agent.example/cb#x'] },
      'invalid_redirect_uri',
    ],
    ['a redirect URI that is not a URL', { redirect_uris: ['cb'] }, 'invalid_redirect_uri'],
    ['redirect_uris not a list', { redirect_uris: 'https://agent.example/cb' }, 'invalid_redirect_uri'],
    ['client_secret_post', { token_endpoint_auth_method: 'client_secret_post' }, 'invalid_client_metadata'],
    ['private_key_jwt', { token_endpoint_auth_method: 'private_key_jwt' }, 'invalid_client_metadata'],
    ['an unknown grant', { grant_types: ['password'] }, 'invalid_client_metadata'],
    ['an unknown response type', { response_types: ['code token'] }, 'invalid_client_metadata'],
    [
      'a bad post-logout URI',
      { post_logout_redirect_uris: ['http://x.example/'] },
      'invalid_client_metadata',
    ],
    ['device grant with redirect URIs', { grant_types: [DEVICE] }, 'invalid_client_metadata'],
    ['a client_name that is not text', { client_name: 42 }, 'invalid_client_metadata'],
    [
      'dpop_bound_access_tokens not a boolean',
      { dpop_bound_access_tokens: 'yes' },
      'invalid_client_metadata',
    ],
    [
      'an http backchannel_logout_uri off loopback',
      { backchannel_logout_uri: 'http://a.example/bc' },
      'invalid_client_metadata',
    ],
    [
      'a backchannel_logout_uri that is not a URL',
      { backchannel_logout_uri: 'bc' },
      'invalid_client_metadata',
    ],
  ])('%s: %s', async (_name, over, error) => {
    const { token: iat, registrationToken } = await token();
    const res = await register({ redirect_uris: [REDIRECT], ...over }, `Bearer ${iat}`);
    expect(res.status).toBe(400);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const answer = (await res.json()) as { error: string; error_description: string };
    expect(answer.error).toBe(error);
    expect(answer.error_description).toEqual(expect.any(String));
    expect(await usesLeft(registrationToken.id)).toBe(1);
  });

  test('a body that is not a JSON object', async () => {
    const { token: iat } = await token();
    for (const body of ['[]', '"x"', '{']) {
      const res = await register(body, `Bearer ${iat}`);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: string }).error).toBe('invalid_client_metadata');
    }
  });

  test('a body over 16 KiB is refused before anything is read into a client', async () => {
    const { token: iat, registrationToken } = await token();
    const res = await register(
      { redirect_uris: [REDIRECT], padding: 'x'.repeat(17 * 1024) },
      `Bearer ${iat}`,
    );
    expect(res.status).toBe(413);
    expect(await usesLeft(registrationToken.id)).toBe(1);
  });

  test('unknown metadata is ignored (RFC 7591 2) and the device grant needs no redirect URI', async () => {
    const { token: iat } = await token();
    const res = await register(
      { grant_types: [DEVICE], token_endpoint_auth_method: 'none', logo_uri: 'https://a.example/l.png' },
      `Bearer ${iat}`,
    );
    expect(res.status).toBe(201);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      grant_types: [DEVICE, 'refresh_token'],
      redirect_uris: [],
      response_types: [],
    });
    expect(body).not.toHaveProperty('logo_uri');
  });
});

test('registrations racing on one token across two replicas never spend more uses than it has', async () => {
  const { token: iat, registrationToken } = await token(3);
  const answers = await Promise.all(
    Array.from({ length: 12 }, (_, i) =>
      register(
        { redirect_uris: [REDIRECT], client_name: `racer-${i}` },
        `Bearer ${iat}`,
        i % 2 ? second : first,
      ),
    ),
  );
  const statuses = answers.map((r) => r.status).sort();
  expect(statuses).toEqual([201, 201, 201, ...Array(9).fill(401)]);
  expect(await usesLeft(registrationToken.id)).toBe(0);
  const created = await Promise.all(answers.filter((r) => r.status === 201).map((r) => r.json()));
  const { clients } = await listOidcClients(first.infra.provisioning, anchor);
  expect(
    clients.filter((c) => created.some((x) => (x as { client_id: string }).client_id === c.clientId)),
  ).toHaveLength(3);
});

test('the per-address limit: 429 with Retry-After past OIDC_REGISTRATION_RATE_PER_MINUTE, before the token is read', async () => {
  const limited = await startOidcPages({
    env: { OIDC_REGISTRATION: 'initial-access-token', OIDC_REGISTRATION_RATE_PER_MINUTE: '2' },
  });
  try {
    const at = () =>
      fetch(`${limited.address}/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer oirt_nothing' },
        body: '{}',
      });
    expect((await at()).status).toBe(401);
    expect((await at()).status).toBe(401);
    const over = await at();
    expect(over.status).toBe(429);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
  } finally {
    await limited.close();
  }
});

test('OIDC_REGISTRATION=off (the default): no /register, none in discovery', async () => {
  const off = await startOidcPages();
  try {
    const doc = (await (await fetch(`${off.address}/.well-known/openid-configuration`)).json()) as object;
    expect(doc).not.toHaveProperty('registration_endpoint');
    const { token: iat } = await token();
    const res = await register({ redirect_uris: [REDIRECT] }, `Bearer ${iat}`, off);
    expect(res.status).toBe(404);
  } finally {
    await off.close();
  }
});
