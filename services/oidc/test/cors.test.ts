// CORS of the OIDC host (CONTRACTS, "OIDC host for browser applications and devices"), over HTTP against the real
// host: discovery and the key set answer any origin; /token and /userinfo answer preflights and carry
// Access-Control-Allow-Origin only for an origin registered for the presenting client (at /userinfo the token's);
// never Allow-Credentials; a wrong origin gets no CORS headers and the same answer as without one; nothing else
// sends CORS headers.
import * as kit from './token-kit';

const h = kit.useOidcHost();

function corsHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((v, k) => {
    if (k.startsWith('access-control-')) out[k] = v;
  });
  return out;
}

async function preflight(path: string, origin: string, method = 'POST') {
  return fetch(`${h.url}${path}`, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': method,
      'access-control-request-headers': 'authorization, content-type',
    },
  });
}

const spa = () => `https://spa-${Math.random().toString(16).slice(2, 10)}.example`;

describe('CORS', () => {
  it('discovery and the JWKS answer any origin, without credentials', async () => {
    for (const path of ['/.well-known/openid-configuration', '/.well-known/jwks.json']) {
      const res = await fetch(`${h.url}${path}`, { headers: { origin: 'https://anyone.example' } });
      expect(res.status).toBe(200);
      expect(corsHeaders(res.headers)).toEqual({ 'access-control-allow-origin': '*' });
    }
  });

  it('/token: preflight and answer carry the registered origin of the presenting client only', async () => {
    const origin = spa();
    const rp = await kit.provisionRp(h, { authMethod: 'none', webOrigins: [origin] });
    const other = await kit.provisionRp(h, { authMethod: 'none', webOrigins: [spa()] });

    const ok = await preflight('/token', origin);
    expect(ok.status).toBe(204);
    expect(corsHeaders(ok.headers)).toEqual({
      'access-control-allow-origin': origin,
      'access-control-allow-methods': 'POST',
      'access-control-allow-headers': 'Authorization, Content-Type, DPoP',
      'access-control-max-age': '600',
    });
    expect(ok.headers.get('vary')).toBe('Origin');
    const revocation = await preflight('/revoke', origin);
    expect(corsHeaders(revocation.headers)['access-control-allow-origin']).toBe(origin);
    const stranger = await preflight('/token', 'https://evil.example');
    expect(stranger.status).toBe(204);
    expect(corsHeaders(stranger.headers)).toEqual({});

    // A public client's code kit.exchange (PKCE) from its page: readable there, and only there.
    const { verifier, challenge } = kit.pkcePair();
    const code = await kit.codeFor(h, kit.grantFor(rp, { codeChallenge: challenge }));
    const answered = await kit.exchange(h, rp, code, { code_verifier: verifier });
    expect(answered.status).toBe(200);
    expect(corsHeaders(answered.headers)).toEqual({});
    const code2 = await kit.codeFor(h, kit.grantFor(rp, { codeChallenge: challenge }));
    const fromPage = await kit.postForm(
      h,
      kit.tokenFields(rp, {
        grant_type: 'authorization_code',
        code: code2,
        redirect_uri: rp.redirectUri,
        code_verifier: verifier,
      }),
      { origin },
    );
    expect(fromPage.status).toBe(200);
    expect(corsHeaders(fromPage.headers)).toEqual({ 'access-control-allow-origin': origin });
    expect(fromPage.headers.get('vary')).toMatch(/Origin/);

    // An error answer is readable by the page too (the client is the same); a wrong origin gets the same error
    // and no CORS headers; another client's origin does not unlock this client's answers.
    const bad = { grant_type: 'authorization_code', code: 'nope', redirect_uri: rp.redirectUri };
    const refused = await kit.postForm(h, kit.tokenFields(rp, bad), { origin });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('invalid_grant');
    expect(corsHeaders(refused.headers)).toEqual({ 'access-control-allow-origin': origin });
    for (const wrong of ['https://evil.example', other.client.webOrigins[0]!, 'null']) {
      const res = await kit.postForm(h, kit.tokenFields(rp, bad), { origin: wrong });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_grant');
      expect(corsHeaders(res.headers)).toEqual({});
    }
  });

  it('/token with Basic credentials: the origin follows the client named, whatever the secret', async () => {
    const origin = spa();
    // A confidential client is refused web origins since #37 (its secret must not be in a page); one registered
    // before the rule keeps them, so the host still answers for it as for any client.
    const rp = await kit.provisionRp(h, { storedWebOrigins: [origin] });
    const code = await kit.codeFor(h, kit.grantFor(rp));
    const ok = await kit.postForm(
      h,
      { grant_type: 'authorization_code', code, redirect_uri: rp.redirectUri },
      { ...kit.authOf(rp), origin },
    );
    expect(ok.status).toBe(200);
    expect(corsHeaders(ok.headers)).toEqual({ 'access-control-allow-origin': origin });
    // CORS is not authentication: a wrong secret is refused (401) however the origin is registered.
    const wrong = await kit.postForm(
      h,
      { grant_type: 'refresh_token', refresh_token: 'x' },
      { basic: [rp.client.clientId, 'oidcs_wrong'], origin },
    );
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe('invalid_client');
  });

  it('/userinfo: the origins of the client the token was issued to', async () => {
    const origin = spa();
    const rp = await kit.provisionRp(h, { authMethod: 'none', webOrigins: [origin] });
    const other = await kit.provisionRp(h, { authMethod: 'none', webOrigins: [spa()] });
    const { verifier, challenge } = kit.pkcePair();
    const code = await kit.codeFor(h, kit.grantFor(rp, { codeChallenge: challenge }));
    const tokens = (await kit.exchange(h, rp, code, { code_verifier: verifier })).body;
    const get = (o: string, token = tokens.access_token as string) =>
      fetch(`${h.url}/userinfo`, { headers: { origin: o, authorization: `Bearer ${token}` } });

    const pre = await preflight('/userinfo', origin, 'GET');
    expect(corsHeaders(pre.headers)['access-control-allow-methods']).toBe('GET, POST');
    const ok = await get(origin);
    expect(ok.status).toBe(200);
    expect(corsHeaders(ok.headers)).toEqual({ 'access-control-allow-origin': origin });
    expect(ok.headers.get('vary')).toBe('Authorization, Origin');
    const wrong = await get(other.client.webOrigins[0]!);
    expect(wrong.status).toBe(200);
    expect(corsHeaders(wrong.headers)).toEqual({});
    const forged = await get(origin, `${tokens.access_token}x`);
    expect(forged.status).toBe(401);
    expect(corsHeaders(forged.headers)).toEqual({});
  });

  it('nothing else sends CORS headers or answers a preflight', async () => {
    const origin = spa();
    await kit.provisionRp(h, { authMethod: 'none', webOrigins: [origin] });
    for (const path of ['/claim-state', '/end-session', '/authorize', '/openapi.json']) {
      const res = await fetch(`${h.url}${path}`, { headers: { origin }, redirect: 'manual' });
      expect(corsHeaders(res.headers)).toEqual({});
      const pre = await preflight(path, origin, 'GET');
      expect(corsHeaders(pre.headers)).toEqual({});
      expect(pre.status).toBe(404);
    }
  });
});
