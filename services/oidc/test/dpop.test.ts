// DPoP at the OIDC host (RFC 9449, CONTRACTS "OIDC for agents and high-security clients"): a proof at /token binds
// the access token (token_type DPoP, cnf.jkt) and a public client's refresh token to its key; a refresh without a
// proof by that key is invalid_grant and leaves the token usable; every malformed proof is 400 invalid_dpop_proof
// before anything is consumed; a proof is used once across two replicas on one Redis, and with Redis out nothing is
// accepted (503); --require-dpop issues nothing without a proof; /userinfo takes DPoP and refuses a bound token as
// Bearer.
import { setOidcClient } from '@svc/provisioning';
import {
  type DpopTestKey,
  dpopKey,
  dpopProof,
  type FaultProxy,
  malformedProofs,
  startFaultProxy,
  startTestHost,
  testEnv,
  testUrls,
} from '@svc/testkit';
import { decodeJwt } from 'jose';
import { createOidcApp } from '../src/app';
import { oidcConfigFromEnv } from '../src/config';
import { openOidcDeps } from '../src/deps';
import {
  type Answer,
  authOf,
  codeFor,
  grantFor,
  type OidcHarness,
  pkcePair,
  provisionRp,
  type RpFixture,
  startOidcHost,
  tokenFields,
  useOidcHost,
} from './token-kit';

const h = useOidcHost();

/** POSTs a form to `base`'s /token as the fixture's client, with `proof` in the DPoP header when given. */
async function token(
  rp: RpFixture,
  fields: Record<string, string>,
  proof?: string | string[],
  base: string = h.url,
): Promise<Answer> {
  const headers = new Headers({ 'content-type': 'application/x-www-form-urlencoded' });
  const basic = authOf(rp)?.basic;
  if (basic) headers.set('authorization', `Basic ${Buffer.from(basic.join(':')).toString('base64')}`);
  for (const p of typeof proof === 'string' ? [proof] : (proof ?? [])) headers.append('dpop', p);
  const res = await fetch(`${base}/token`, {
    method: 'POST',
    headers,
    body: new URLSearchParams(tokenFields(rp, fields)).toString(),
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

const proofFor = (key: DpopTestKey, path = '/token', htm = 'POST', accessToken?: string) =>
  dpopProof(key, { htm, htu: `${h.url}${path}`, accessToken });

/** A code for `rp` (with PKCE) and the form that exchanges it. */
async function codeFields(hh: OidcHarness, rp: RpFixture) {
  const pkce = pkcePair();
  const code = await codeFor(hh, grantFor(rp, { codeChallenge: pkce.challenge }));
  return {
    grant_type: 'authorization_code',
    code,
    redirect_uri: rp.redirectUri,
    code_verifier: pkce.verifier,
  };
}

async function exchangeBound(rp: RpFixture, key?: DpopTestKey) {
  return token(rp, await codeFields(h, rp), key ? proofFor(key) : undefined);
}

const refreshFields = (refreshToken: string) => ({
  grant_type: 'refresh_token',
  refresh_token: refreshToken,
});

async function userinfo(authorization: string, proof?: string) {
  const headers: Record<string, string> = { authorization };
  if (proof) headers.dpop = proof;
  const res = await fetch(`${h.url}/userinfo`, { headers });
  return { status: res.status, challenge: res.headers.get('www-authenticate'), body: await res.json() };
}

describe('DPoP at /token', () => {
  it('discovery names the proof algorithms', async () => {
    const doc = await (await fetch(`${h.url}/.well-known/openid-configuration`)).json();
    expect(doc.dpop_signing_alg_values_supported).toEqual(['ES256', 'EdDSA', 'RS256']);
  });

  it.each(['ES256', 'EdDSA', 'RS256'] as const)(
    'binds a public client’s tokens to a %s key; its refresh needs a proof by that key',
    async (alg) => {
      const rp = await provisionRp(h, { authMethod: 'none' });
      const key = await dpopKey(alg);
      const first = await exchangeBound(rp, key);
      expect([first.status, first.body.token_type]).toEqual([200, 'DPoP']);
      expect(decodeJwt(first.body.access_token).cnf).toEqual({ jkt: key.jkt });
      const refreshToken = first.body.refresh_token as string;

      // No proof, or a proof by another key: invalid_grant, and the refresh token is not consumed.
      const none = await token(rp, refreshFields(refreshToken));
      expect([none.status, none.body.error]).toEqual([400, 'invalid_grant']);
      const other = await token(rp, refreshFields(refreshToken), proofFor(await dpopKey(alg)));
      expect([other.status, other.body.error]).toEqual([400, 'invalid_grant']);

      const next = await token(rp, refreshFields(refreshToken), proofFor(key));
      expect([next.status, next.body.token_type]).toEqual([200, 'DPoP']);
      expect(decodeJwt(next.body.access_token).cnf).toEqual({ jkt: key.jkt });
      // The rotated token is bound as well.
      const again = await token(rp, refreshFields(next.body.refresh_token));
      expect([again.status, again.body.error]).toEqual([400, 'invalid_grant']);
    },
  );

  it('binds a confidential client’s access tokens only: its refresh token needs no proof', async () => {
    const rp = await provisionRp(h);
    const key = await dpopKey();
    const first = await exchangeBound(rp, key);
    expect([first.status, first.body.token_type]).toEqual([200, 'DPoP']);
    expect(decodeJwt(first.body.access_token).cnf).toEqual({ jkt: key.jkt });
    const plain = await token(rp, refreshFields(first.body.refresh_token));
    expect([plain.status, plain.body.token_type]).toEqual([200, 'Bearer']);
    expect(decodeJwt(plain.body.access_token).cnf).toBeUndefined();
    const bound = await token(rp, refreshFields(plain.body.refresh_token), proofFor(key));
    expect([bound.status, bound.body.token_type]).toEqual([200, 'DPoP']);
  });

  it('without a proof issues Bearer tokens as before', async () => {
    const rp = await provisionRp(h, { authMethod: 'none' });
    const first = await exchangeBound(rp);
    expect([first.status, first.body.token_type]).toEqual([200, 'Bearer']);
    expect(decodeJwt(first.body.access_token).cnf).toBeUndefined();
    const next = await token(rp, refreshFields(first.body.refresh_token));
    expect([next.status, next.body.token_type]).toEqual([200, 'Bearer']);
  });

  it('refuses every malformed proof with invalid_dpop_proof before the code is consumed', async () => {
    const rp = await provisionRp(h, { authMethod: 'none' });
    const key = await dpopKey();
    const fields = await codeFields(h, rp);
    const bad = (await malformedProofs(key, { htm: 'POST', htu: `${h.url}/token` })).filter(
      (b) => b.failure !== 'missing',
    );
    const answers: string[] = [];
    for (const b of bad) {
      const res = await token(rp, fields, b.proof);
      answers.push(`${b.trick}: ${res.status} ${res.body.error}`);
    }
    expect(answers).toEqual(bad.map((b) => `${b.trick}: 400 invalid_dpop_proof`));
    // Two DPoP headers, each genuine.
    const two = await token(rp, fields, [proofFor(key), proofFor(key)]);
    expect([two.status, two.body.error]).toEqual([400, 'invalid_dpop_proof']);
    // A proof for the wrong endpoint of this host.
    const wrong = await token(rp, fields, proofFor(key, '/userinfo'));
    expect([wrong.status, wrong.body.error]).toEqual([400, 'invalid_dpop_proof']);
    // Nothing was consumed: the code still works with a genuine proof.
    const ok = await token(rp, fields, proofFor(key));
    expect([ok.status, ok.body.token_type]).toEqual([200, 'DPoP']);
  });

  it('a client registered with --require-dpop gets no token without a proof', async () => {
    const rp = await provisionRp(h);
    await setOidcClient(h.infra.provisioning, rp.client.clientId, { requireDpop: true });
    h.deps.ports.clients.clear();
    const code = await codeFor(
      h,
      grantFor({ ...rp, client: (await h.deps.ports.clients.get(rp.client.clientId))! }),
    );
    const fields = { grant_type: 'authorization_code', code, redirect_uri: rp.redirectUri };
    const refused = await token(rp, fields);
    expect([refused.status, refused.body.error]).toEqual([400, 'invalid_dpop_proof']);
    const key = await dpopKey();
    const ok = await token(rp, fields, proofFor(key));
    expect([ok.status, ok.body.token_type]).toEqual([200, 'DPoP']);
    // Refresh too, though a confidential client's refresh token is not bound.
    const plain = await token(rp, refreshFields(ok.body.refresh_token));
    expect([plain.status, plain.body.error]).toEqual([400, 'invalid_dpop_proof']);
    const bound = await token(rp, refreshFields(ok.body.refresh_token), proofFor(key));
    expect([bound.status, bound.body.token_type]).toEqual([200, 'DPoP']);
  });
});

describe('DPoP at /userinfo', () => {
  let rp: RpFixture;
  let key: DpopTestKey;
  let accessToken: string;
  beforeAll(async () => {
    rp = await provisionRp(h, { authMethod: 'none' });
    key = await dpopKey();
    accessToken = (await exchangeBound(rp, key)).body.access_token;
  });
  const proof = (k = key, method = 'GET', at = accessToken) => proofFor(k, '/userinfo', method, at);

  it('answers a bound token presented as DPoP with a proof by its key, once per proof', async () => {
    const p = proof();
    const ok = await userinfo(`DPoP ${accessToken}`, p);
    expect([ok.status, typeof ok.body.sub]).toEqual([200, 'string']);
    const replay = await userinfo(`DPoP ${accessToken}`, p);
    expect([replay.status, replay.body.error]).toEqual([401, 'invalid_dpop_proof']);
    expect(replay.challenge).toMatch(/^DPoP .*error="invalid_dpop_proof"/);
    // POST /userinfo with a POST proof.
    const res = await fetch(`${h.url}/userinfo`, {
      method: 'POST',
      headers: { authorization: `DPoP ${accessToken}`, dpop: proof(key, 'POST') },
    });
    expect(res.status).toBe(200);
  });

  it('refuses the bound token as Bearer, with the DPoP challenge (RFC 9449 7.1)', async () => {
    const res = await userinfo(`Bearer ${accessToken}`, proof());
    expect([res.status, res.body.error]).toEqual([401, 'invalid_token']);
    expect(res.challenge).toMatch(/^DPoP realm="oidc", algs="ES256 EdDSA RS256", error="invalid_token"/);
  });

  it('refuses a missing proof, a proof by another key, and every malformed proof', async () => {
    const missing = await userinfo(`DPoP ${accessToken}`);
    expect([missing.status, missing.body.error]).toEqual([401, 'invalid_dpop_proof']);
    const other = await userinfo(`DPoP ${accessToken}`, proof(await dpopKey()));
    expect([other.status, other.body.error]).toEqual([401, 'invalid_token']);
    const bad = await malformedProofs(key, { htm: 'GET', htu: `${h.url}/userinfo`, accessToken });
    const answers: string[] = [];
    for (const b of bad.filter((x) => x.failure !== 'missing')) {
      const res = await userinfo(`DPoP ${accessToken}`, b.proof);
      answers.push(`${b.trick}: ${res.status} ${res.body.error}`);
    }
    expect(answers).toEqual(
      bad.filter((x) => x.failure !== 'missing').map((b) => `${b.trick}: 401 invalid_dpop_proof`),
    );
  });

  it('refuses an unbound token presented as DPoP', async () => {
    const plain = (await exchangeBound(rp)).body.access_token as string;
    const res = await userinfo(`DPoP ${plain}`, proof(key, 'GET', plain));
    expect([res.status, res.body.error]).toEqual([401, 'invalid_token']);
    expect((await userinfo(`Bearer ${plain}`)).status).toBe(200);
  });
});

describe('DPoP proofs across replicas and through a Redis outage', () => {
  it('a proof used at one replica is refused at the other (one Redis)', async () => {
    const deps = openOidcDeps(oidcConfigFromEnv(testEnv({ OIDC_URL: h.url })), h.infra.issuance.clock);
    const other = await startTestHost(createOidcApp(deps));
    try {
      const rp = await provisionRp(h, { authMethod: 'none' });
      const key = await dpopKey();
      const first = await exchangeBound(rp, key);
      const p = proofFor(key);
      const [a, b] = await Promise.all([
        token(rp, refreshFields(first.body.refresh_token), p),
        token(rp, refreshFields(first.body.refresh_token), p, other.url),
      ]);
      // Exactly one took the proof; the other refused it as used, and that refusal consumed nothing.
      expect([a.status, b.status].sort()).toEqual([200, 400]);
      expect([a.body.error, b.body.error]).toContain('invalid_dpop_proof');
      // Sequentially as well, each way.
      const winner = a.status === 200 ? a : b;
      const q = proofFor(key);
      expect((await token(rp, refreshFields(winner.body.refresh_token), q, other.url)).status).toBe(200);
      expect((await token(rp, refreshFields(winner.body.refresh_token), q)).body.error).toBe(
        'invalid_dpop_proof',
      );
    } finally {
      await other.close();
      await deps.close();
    }
  });

  it('with Redis cut, a genuine proof is refused (503) and nothing is consumed', async () => {
    const proxy: FaultProxy = await startFaultProxy({
      host: new URL(testUrls.redis).hostname,
      port: Number(new URL(testUrls.redis).port || 6379),
    });
    let cutHost: OidcHarness | undefined;
    try {
      cutHost = await startOidcHost({
        REDIS_URL: proxy.urlFor(testUrls.redis),
        REDIS_COMMAND_TIMEOUT_MS: '300',
      });
      const hh = cutHost;
      const rp = await provisionRp(hh, { authMethod: 'none' });
      const key = await dpopKey();
      const fields = await codeFields(hh, rp);
      const at = (k: DpopTestKey) => dpopProof(k, { htm: 'POST', htu: `${hh.url}/token` });
      await proxy.cut();
      const down = await token(rp, fields, at(key), hh.url);
      expect([down.status, down.body.error]).toEqual([503, 'temporarily_unavailable']);
      await proxy.pass();
      const ok = await token(rp, fields, at(key), hh.url);
      expect([ok.status, ok.body.token_type]).toEqual([200, 'DPoP']);
    } finally {
      await cutHost?.close();
      await proxy.close();
    }
  });
});

describe('DPoP at /par (RFC 9449 10)', () => {
  async function push(rp: RpFixture, proof?: string) {
    const pkce = pkcePair();
    const fields = {
      response_type: 'code',
      redirect_uri: rp.redirectUri,
      scope: 'openid',
      code_challenge: pkce.challenge,
      code_challenge_method: 'S256',
      state: 's',
    };
    const headers = new Headers({ 'content-type': 'application/x-www-form-urlencoded' });
    if (proof) headers.set('dpop', proof);
    const res = await fetch(`${h.url}/par`, {
      method: 'POST',
      headers,
      body: new URLSearchParams(tokenFields(rp, fields)).toString(),
    });
    return { status: res.status, body: await res.json() };
  }

  it('takes a genuine proof, refuses every malformed one before anything is stored', async () => {
    const rp = await provisionRp(h, { authMethod: 'none' });
    const key = await dpopKey('EdDSA');
    const ok = await push(rp, proofFor(key, '/par'));
    expect(ok.status).toBe(201);
    const bad = (await malformedProofs(key, { htm: 'POST', htu: `${h.url}/par` })).filter(
      (b) => b.failure !== 'missing',
    );
    const answers: string[] = [];
    for (const b of bad) {
      const res = await push(rp, b.proof);
      answers.push(`${b.trick}: ${res.status} ${res.body.error}`);
    }
    expect(answers).toEqual(bad.map((b) => `${b.trick}: 400 invalid_dpop_proof`));
    // A proof made for /token is not one for /par.
    expect((await push(rp, proofFor(key))).body.error).toBe('invalid_dpop_proof');
  });

  it('a code from a request pushed with a proof is redeemed only with a proof by that key', async () => {
    const rp = await provisionRp(h, { authMethod: 'none' });
    const key = await dpopKey();
    const boundCode = async () => {
      const pkce = pkcePair();
      const code = await codeFor(h, grantFor(rp, { codeChallenge: pkce.challenge, dpopJkt: key.jkt }));
      return {
        grant_type: 'authorization_code',
        code,
        redirect_uri: rp.redirectUri,
        code_verifier: pkce.verifier,
      };
    };
    const none = await token(rp, await boundCode());
    expect([none.status, none.body.error]).toEqual([400, 'invalid_grant']);
    const other = await token(rp, await boundCode(), proofFor(await dpopKey()));
    expect([other.status, other.body.error]).toEqual([400, 'invalid_grant']);
    const ok = await token(rp, await boundCode(), proofFor(key));
    expect([ok.status, ok.body.token_type]).toEqual([200, 'DPoP']);
    expect(decodeJwt(ok.body.access_token).cnf).toEqual({ jkt: key.jkt });
  });
});
