// A key removed from the OIDC issuer's JWK Set is trusted only 300 s after the client first saw it gone: tested
// against a local HTTP server serving a JWK Set this test controls, with jose-signed RS256 ID tokens and a moved clock.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK, jwtVerify, SignJWT } from 'jose';
import { createOidcClient } from './oidc.ts';
import { GONE_KEY_GRACE_SECONDS, OidcKeySet } from './oidc-key-set.ts';

let server: Server;
let url: string;
let served: JWK[] = [];
let fetches = 0;

beforeAll(async () => {
  server = createServer((_req, res) => {
    fetches += 1;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: served }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

async function rsaKey(kid: string) {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } };
}
const sign = (k: { kid: string; privateKey: CryptoKey }) =>
  new SignJWT({ sub: 'someone' })
    .setProtectedHeader({ alg: 'RS256', kid: k.kid })
    .setIssuedAt()
    .sign(k.privateKey);

test('a removed key is accepted for 300 s after the client saw it gone, then refused with a clear error', async () => {
  const k = await rsaKey(`k-${Math.random().toString(36).slice(2)}`);
  const other = await rsaKey(`o-${Math.random().toString(36).slice(2)}`);
  served = [k.jwk, other.jwk];
  let clock = Date.now();
  const set = new OidcKeySet(url, { transport: { fetch, timeoutMs: 5000 }, now: () => clock });
  const verify = async (token: string) =>
    jwtVerify(token, (h) => set.getKey(h), { algorithms: ['RS256'], currentDate: new Date(Date.now()) });
  const token = await sign(k);
  await expect(verify(token)).resolves.toBeDefined();

  served = [other.jwk];
  clock += 31_000; // the cached set is now due for a refetch, which shows K gone
  const before = fetches;
  await expect(verify(token)).resolves.toBeDefined();
  expect(fetches).toBe(before + 1);
  const goneSeen = clock;

  clock = goneSeen + GONE_KEY_GRACE_SECONDS * 1000; // exactly 300 s: still inside the grace
  await expect(verify(token)).resolves.toBeDefined();

  clock = goneSeen + GONE_KEY_GRACE_SECONDS * 1000 + 1000;
  await expect(verify(token)).rejects.toThrow(/left the issuer's JWK Set more than 300 s ago/);
  // The other key still verifies.
  await expect(verify(await sign(other))).resolves.toBeDefined();
});

test('a flood of tokens naming a gone or unknown kid costs at most one fetch per floor', async () => {
  const k = await rsaKey(`k-${Math.random().toString(36).slice(2)}`);
  served = [k.jwk];
  const clock = Date.now();
  const set = new OidcKeySet(url, { transport: { fetch, timeoutMs: 5000 }, now: () => clock });
  const forged = await sign({ kid: 'no-such-kid', privateKey: k.privateKey });
  const before = fetches;
  for (let i = 0; i < 50; i++) {
    await expect(jwtVerify(forged, (h) => set.getKey(h))).rejects.toThrow(/no key no-such-kid/);
  }
  expect(fetches - before).toBe(1);
});

test('createOidcClient: the callback refuses an ID token whose key left the JWK Set more than 300 s ago', async () => {
  const k = await rsaKey(`k-${Math.random().toString(36).slice(2)}`);
  const clientId = `c-${Math.random().toString(36).slice(2)}`;
  let keys: JWK[] = [k.jwk];
  let idToken = '';
  const issuerServer = createServer((req, res) => {
    const base = `http://127.0.0.1:${(issuerServer.address() as AddressInfo).port}`;
    const json = (b: unknown) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(b));
    if (req.url === '/.well-known/openid-configuration')
      return json({
        issuer: base,
        authorization_endpoint: `${base}/authorize`,
        token_endpoint: `${base}/token`,
        jwks_uri: `${base}/jwks.json`,
        userinfo_endpoint: `${base}/userinfo`,
      });
    if (req.url === '/jwks.json') return json({ keys });
    return json({ access_token: 'at', token_type: 'Bearer', id_token: idToken });
  });
  await new Promise<void>((r) => issuerServer.listen(0, '127.0.0.1', r));
  try {
    const issuer = `http://127.0.0.1:${(issuerServer.address() as AddressInfo).port}`;
    let clock = Date.now();
    const oidc = createOidcClient({ issuer, clientId, redirectUri: 'http://127.0.0.1/cb', now: () => clock });
    const signIn = async () => {
      const { pending } = await oidc.authorizationRequest();
      idToken = await new SignJWT({ sub: 'someone', nonce: pending.nonce })
        .setProtectedHeader({ alg: 'RS256', kid: k.kid })
        .setIssuer(issuer)
        .setAudience(clientId)
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(k.privateKey);
      return oidc.callback({ state: pending.state, code: 'c' }, pending);
    };
    await expect(signIn()).resolves.toMatchObject({ claims: { sub: 'someone' } });
    keys = [];
    clock += 31_000;
    await expect(signIn()).resolves.toBeDefined(); // K seen gone now: inside the grace
    clock += 300_000;
    await expect(signIn()).resolves.toBeDefined();
    clock += 1_000;
    await expect(signIn()).rejects.toThrow(/left the issuer's JWK Set more than 300 s ago/);
  } finally {
    await new Promise<void>((r) => issuerServer.close(() => r()));
  }
});
