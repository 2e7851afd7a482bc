// The OIDC client's back-channel logout token check (OIDC Back-Channel Logout 1.0, 2.6) against a local OP this
// test serves (discovery and JWK Set): a good token is accepted once and reported as a replay after; each claim the
// spec requires, missing or wrong, and an ID token posted as a logout token, is refused with LogoutTokenError.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from 'jose';
import { createOidcClient } from './oidc.ts';
import { BACKCHANNEL_LOGOUT_EVENT, LogoutTokenError } from './oidc-logout.ts';

let server: Server;
let issuer: string;
let key: Awaited<ReturnType<typeof generateKeyPair>>;
const KID = 'op-key';
const CLIENT = 'client-1';

beforeAll(async () => {
  key = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(key.publicKey)), kid: KID, alg: 'RS256', use: 'sig' };
  server = createServer((req, res) => {
    const body =
      req.url === '/jwks.json'
        ? { keys: [jwk] }
        : {
            issuer,
            authorization_endpoint: `${issuer}/authorize`,
            token_endpoint: `${issuer}/token`,
            userinfo_endpoint: `${issuer}/userinfo`,
            jwks_uri: `${issuer}/jwks.json`,
          };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const client = () => createOidcClient({ issuer, clientId: CLIENT, redirectUri: 'https://rp.example/cb' });

/** A logout token as the OP signs it, with `change` applied to its claims and `header` to its header. */
async function logoutToken(
  change: (claims: JWTPayload) => JWTPayload = (c) => c,
  header: Record<string, unknown> = { typ: 'logout+jwt' },
  signingKey: CryptoKey = key.privateKey,
) {
  const now = Math.floor(Date.now() / 1000);
  const claims = change({
    iss: issuer,
    aud: CLIENT,
    iat: now,
    exp: now + 120,
    jti: crypto.randomUUID(),
    sub: 'pairwise-sub',
    sid: 'sign-in-sid',
    events: { [BACKCHANNEL_LOGOUT_EVENT]: {} },
  });
  return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: KID, ...header }).sign(signingKey);
}

test('a good logout token is accepted, and the same jti again is reported as a replay', async () => {
  const rp = client();
  const token = await logoutToken();
  const first = await rp.verifyLogoutToken(token);
  expect(first).toEqual({
    iss: issuer,
    sub: 'pairwise-sub',
    sid: 'sign-in-sid',
    jti: expect.any(String),
    iat: expect.any(Number),
    replay: false,
  });
  expect(await rp.verifyLogoutToken(token)).toMatchObject({ jti: first.jti, replay: true });
  // A token with only a sid, and one without a typ (the spec recommends, not requires, explicit typing).
  await expect(rp.verifyLogoutToken(await logoutToken(({ sub: _s, ...c }) => c))).resolves.toMatchObject({
    sid: 'sign-in-sid',
  });
  await expect(rp.verifyLogoutToken(await logoutToken((c) => c, {}))).resolves.toMatchObject({
    replay: false,
  });
});

test('each wrong or missing claim, a foreign key, an ID token and a wrong typ are refused', async () => {
  const rp = client();
  const now = Math.floor(Date.now() / 1000);
  const other = await generateKeyPair('RS256');
  const refused: [string, Promise<string>][] = [
    ['wrong iss', logoutToken((c) => ({ ...c, iss: 'https://elsewhere.example' }))],
    ['wrong aud', logoutToken((c) => ({ ...c, aud: 'client-2' }))],
    ['a second aud', logoutToken((c) => ({ ...c, aud: [CLIENT, 'client-2'] }))],
    ['no events', logoutToken(({ events: _e, ...c }) => c)],
    ['another event', logoutToken((c) => ({ ...c, events: { 'urn:other': {} } }))],
    ['a non-object event', logoutToken((c) => ({ ...c, events: { [BACKCHANNEL_LOGOUT_EVENT]: true } }))],
    ['a nonce (an ID token)', logoutToken((c) => ({ ...c, nonce: 'n' }))],
    ['neither sub nor sid', logoutToken(({ sub: _s, sid: _d, ...c }) => c)],
    ['no jti', logoutToken(({ jti: _j, ...c }) => c)],
    ['no iat', logoutToken(({ iat: _i, ...c }) => c)],
    ['no exp', logoutToken(({ exp: _x, ...c }) => c)],
    ['expired', logoutToken((c) => ({ ...c, iat: now - 200, exp: now - 60 }))],
    ['issued too long ago', logoutToken((c) => ({ ...c, iat: now - 3600, exp: now + 60 }))],
    ['typ JWT', logoutToken((c) => c, { typ: 'JWT' })],
    ['signed by another key', logoutToken((c) => c, undefined, other.privateKey)],
    ['not a JWS', Promise.resolve('not.a.token')],
  ];
  for (const [why, token] of refused) {
    const error = await rp.verifyLogoutToken(await token).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect([why, error instanceof LogoutTokenError]).toEqual([why, true]);
  }
});
