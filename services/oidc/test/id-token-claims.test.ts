// ID tokens carry exactly the spec table's claims (iss, sub, aud, exp, iat, nonce, auth_time, at_hash, c_hash, amr,
// acr; profile claims only for response_type=id_token) and the sign-in session's sid (OIDC Back-Channel Logout):
// no jti or azp. Checked for the five response types at /authorize, the code exchange and the refresh grant; amr,
// acr and sid are those of the sign-in (an email-code sign-up is not a passkey) and stay across refresh grants with
// auth_time; end-session finds the sessions a hint stands for.
import { OIDC_SCOPE } from '@svc/keyring';
import { emailCodeReferences, passkeySignInReferences } from '@svc/signin';
import { CLAIM_VIEW_KEYS } from '@svc/testkit';
import { OIDC_RESPONSE_TYPES } from '@svc/token-core';
import { CompactSign, decodeJwt, importPKCS8 } from 'jose';
import { issueAuthorizationResponse } from '../src/domain/authorization';
import { mintIdToken } from '../src/domain/id-token';
import {
  codeFor,
  exchange,
  grantFor,
  halfHash,
  provisionRp,
  refresh,
  useOidcHost,
  verifyIdToken,
} from './token-kit';

const h = useOidcHost();

const BASE = ['iss', 'sub', 'aud', 'exp', 'iat', 'auth_time', 'amr', 'acr', 'sid'];
const keys = (claims: object) => Object.keys(claims).sort();
const sorted = (list: string[]) => [...list].sort();

describe('the claim set of every ID token', () => {
  test.each(OIDC_RESPONSE_TYPES.filter((t) => t.includes('id_token')))(
    'response_type=%s at /authorize: exactly the table, hashes by the authorization-response rules',
    async (responseType) => {
      const rp = await provisionRp(h);
      const grant = grantFor(rp, { scope: 'openid' });
      const out = await issueAuthorizationResponse(h.deps, grant, responseType);
      const id = await verifyIdToken(h, out.id_token as string, rp.client.clientId);
      const expected = [...BASE, 'nonce'];
      if (out.access_token) expected.push('at_hash');
      if (out.code) expected.push('c_hash');
      expect(keys(id)).toEqual(sorted(expected));
      expect(id.nonce).toBe(grant.nonce);
      if (out.access_token) expect(id.at_hash).toBe(halfHash(out.access_token));
      if (out.code) expect(id.c_hash).toBe(halfHash(out.code));
      expect(Boolean(out.access_token)).toBe(responseType.split(' ').includes('token'));
      expect(Boolean(out.code)).toBe(responseType.startsWith('code'));
    },
  );

  test('response_type=id_token adds only profile claims the scopes ask for', async () => {
    const rp = await provisionRp(h, { claims: { email: 'OPTIONAL', firstName: 'OPTIONAL' } });
    const out = await issueAuthorizationResponse(h.deps, grantFor(rp, { scope: 'openid email' }), 'id_token');
    const id = decodeJwt(out.id_token as string);
    const extra = keys(id).filter((k) => ![...BASE, 'nonce'].includes(k));
    for (const k of extra) expect(['email', 'email_verified']).toContain(k);
    const hybrid = await issueAuthorizationResponse(
      h.deps,
      grantFor(rp, { scope: 'openid email' }),
      'code id_token',
    );
    expect(keys(decodeJwt(hybrid.id_token as string))).toEqual(sorted([...BASE, 'nonce', 'c_hash']));
  });

  test('code exchange and refresh grant: the table with the sign-in sid; an email-code sign-in keeps otp and no acr', async () => {
    const rp = await provisionRp(h);
    const grant = grantFor(rp, { ...emailCodeReferences(), acr: undefined });
    const first = await exchange(h, rp, await codeFor(h, grant));
    expect(first.status).toBe(200);
    const id = await verifyIdToken(h, first.body.id_token, rp.client.clientId);
    expect(keys(id)).toEqual(
      sorted(['iss', 'sub', 'aud', 'exp', 'iat', 'auth_time', 'amr', 'nonce', 'at_hash', 'sid']),
    );
    expect(id.amr).toEqual(['otp']);
    const renewed = await refresh(h, rp, first.body.refresh_token);
    expect(renewed.status).toBe(200);
    const again = await verifyIdToken(h, renewed.body.id_token, rp.client.clientId);
    expect(keys(again)).toEqual(
      sorted(['iss', 'sub', 'aud', 'exp', 'iat', 'auth_time', 'amr', 'at_hash', 'sid']),
    );
    expect(again).toMatchObject({ amr: ['otp'], auth_time: id.auth_time, sid: id.sid });
    // The sign-in's sid: not the session row's id (the access token's sid), nor the sign-in's handle.
    expect(id.sid).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(id.sid).not.toBe(decodeJwt(first.body.access_token).sid);
    expect(id.sid).not.toContain(grant.browserSessionId ?? '-');
    expect(again.at_hash).toBe(halfHash(renewed.body.access_token));
  });

  test('a passkey sign-in: amr and acr of the passkey, on the code exchange and after refresh', async () => {
    const rp = await provisionRp(h);
    const refs = passkeySignInReferences(false);
    const first = await exchange(h, rp, await codeFor(h, grantFor(rp, refs)));
    expect(decodeJwt(first.body.id_token)).toMatchObject({ amr: ['pop', 'user', 'mfa'], acr: 'phr' });
    const renewed = await refresh(h, rp, first.body.refresh_token);
    expect(decodeJwt(renewed.body.id_token)).toMatchObject({ amr: ['pop', 'user', 'mfa'], acr: 'phr' });
  });
});

describe('an ID token without a session (id_token, code id_token) under a moving authority', () => {
  /** The host's deps whose signer lookup, inside the answer's mint, first runs `during`. */
  function depsMinting(during: () => Promise<unknown>): typeof h.deps {
    const ring = h.deps.keyRing;
    const keyRing = Object.assign(Object.create(ring), {
      signer: async (scope: string) => {
        await during();
        return ring.signer(scope);
      },
    });
    return { ...h.deps, keyRing };
  }

  test.each(['id_token', 'code id_token'] as const)(
    'response_type=%s: an authority change between the checks and the mint is AuthorizationArtifactStale, no token',
    async (responseType) => {
      const rp = await provisionRp(h);
      const { authorityVersion } = await h.infra.db.account.findUniqueOrThrow({
        where: { id: rp.accountId },
      });
      const grant = grantFor(rp, { scope: 'openid', authorityVersion });
      // Unchanged, the answer is issued.
      const issued = await issueAuthorizationResponse(
        depsMinting(async () => {}),
        grant,
        responseType,
      );
      expect(issued.id_token).toEqual(expect.any(String));
      // The owner removes a passkey (the authority moves) after the checks passed, while the token is made.
      const moved = depsMinting(() =>
        h.infra.db.account.update({
          where: { id: rp.accountId },
          data: { authorityVersion: { increment: 1 } },
        }),
      );
      await expect(issueAuthorizationResponse(moved, { ...grant }, responseType)).rejects.toMatchObject({
        reason: 'AuthorizationArtifactStale',
      });
    },
  );
});

test("mintIdToken: the token jose's CompactSign made from the same key and claims, byte for byte, and deterministic", async () => {
  const rp = await provisionRp(h);
  const at = Math.floor(h.deps.clock() / 1000) * 1000;
  const deps = { ...h.deps, clock: () => at };
  const input = {
    clientId: rp.client.clientId,
    subject: 'ss_pairwise',
    authTime: new Date(at - 60_000),
    amr: ['pop', 'user'],
    acr: 'phr',
    nonce: 'n-0S6_WzA2Mj',
    accessToken: 'access-token-value',
    sid: 'sid-of-the-sign-in',
  };
  const token = await mintIdToken(deps, input);
  expect(await mintIdToken(deps, input)).toBe(token);
  const signer = (await h.deps.keyRing.signer(OIDC_SCOPE))!;
  const [header, payload] = token.split('.') as [string, string, string];
  expect(Buffer.from(header, 'base64url').toString()).toBe(
    `{"alg":"RS256","kid":"${signer.kid}","typ":"JWT"}`,
  );
  // The former path over the same key material (exported here, in a test only) and the same payload bytes.
  const joseKey = await importPKCS8(signer.key.export({ format: 'pem', type: 'pkcs8' }).toString(), 'RS256');
  const before = await new CompactSign(Buffer.from(payload, 'base64url'))
    .setProtectedHeader({ alg: 'RS256', kid: signer.kid, typ: 'JWT' })
    .sign(joseKey);
  expect(token).toBe(before);
  // And it verifies with jose and jsonwebtoken against the published JWK Set.
  expect(await verifyIdToken(h, token, rp.client.clientId)).toMatchObject({
    sub: 'ss_pairwise',
    nonce: input.nonce,
  });
});

test('discovery names exactly the claims ID tokens and userinfo carry (sid among them), and every acr a sign-in states', async () => {
  const meta = (await (await fetch(`${h.url}/.well-known/openid-configuration`)).json()) as Record<
    string,
    string[]
  >;
  // Every claim the host puts anywhere, observed rather than copied: every profile claim disclosed (synthetic
  // values stand in where the account has none), in the ID token of every response type and in /userinfo.
  const rp = await provisionRp(h, {
    claims: Object.fromEntries(CLAIM_VIEW_KEYS.map((k) => [k, 'SYNTHETIC_FALLBACK'])),
  });
  const scope = 'openid profile email';
  const carried = new Set<string>();
  const note = (claims: object) => {
    for (const k of Object.keys(claims)) carried.add(k);
  };
  for (const responseType of OIDC_RESPONSE_TYPES.filter((t) => t.includes('id_token'))) {
    const out = await issueAuthorizationResponse(h.deps, grantFor(rp, { scope }), responseType);
    note(decodeJwt(out.id_token as string));
  }
  const tokens = (await exchange(h, rp, await codeFor(h, grantFor(rp, { scope })))).body;
  note(decodeJwt(tokens.id_token));
  const info = await fetch(`${h.url}/userinfo`, {
    headers: { authorization: `Bearer ${tokens.access_token}` },
  });
  expect(info.status).toBe(200);
  note((await info.json()) as object);
  // The profile claims all came through (picture_animated among them), so the set is complete.
  expect(carried).toContain('picture_animated');
  expect(carried).toContain('sid');
  expect(sorted(meta.claims_supported as string[])).toEqual(sorted([...carried]));
  const stated = [passkeySignInReferences(true).acr, passkeySignInReferences(false).acr];
  expect(sorted(meta.acr_values_supported as string[])).toEqual(sorted(stated as string[]));
});

// The document as this host serves it, every value written out here rather than taken from the code that makes
// it; members it does not serve stay out (no userinfo_signing_alg_values_supported: /userinfo answers plain JSON,
// never a signed JWT, and the member is optional).
test('discovery: exactly the metadata of what the host serves', async () => {
  const res = await fetch(`${h.url}/.well-known/openid-configuration`);
  expect(res.headers.get('cache-control')).toBe('public, max-age=300');
  const meta = (await res.json()) as Record<string, unknown>;
  // In the alphabetical order of the members, not the order of the code that makes them.
  expect(meta).toEqual({
    acr_values_supported: ['phrh', 'phr'],
    authorization_endpoint: `${h.url}/authorize`,
    authorization_response_iss_parameter_supported: true,
    backchannel_logout_session_supported: true,
    backchannel_logout_supported: true,
    claim_state_endpoint: `${h.url}/claim-state`,
    claims_parameter_supported: false,
    claims_supported: expect.any(Array),
    code_challenge_methods_supported: ['S256'],
    device_authorization_endpoint: `${h.url}/device-authorization`,
    dpop_signing_alg_values_supported: ['ES256', 'EdDSA', 'RS256'],
    end_session_endpoint: `${h.url}/end-session`,
    grant_types_supported: [
      'authorization_code',
      'implicit',
      'refresh_token',
      'urn:ietf:params:oauth:grant-type:device_code',
    ],
    id_token_signing_alg_values_supported: ['RS256'],
    issuer: h.url,
    jwks_uri: `${h.url}/.well-known/jwks.json`,
    prompt_values_supported: ['none', 'login', 'consent', 'select_account'],
    pushed_authorization_request_endpoint: `${h.url}/par`,
    request_parameter_supported: false,
    request_uri_parameter_supported: false,
    require_pushed_authorization_requests: false,
    require_request_uri_registration: false,
    response_modes_supported: ['query', 'fragment', 'form_post'],
    response_types_supported: ['code', 'id_token', 'id_token token', 'code id_token', 'code id_token token'],
    revocation_endpoint: `${h.url}/revoke`,
    revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    scopes_supported: ['openid', 'profile', 'email', 'offline_access'],
    subject_types_supported: ['pairwise'],
    token_endpoint: `${h.url}/token`,
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    ui_locales_supported: ['en-US', 'zh-CN'],
    userinfo_endpoint: `${h.url}/userinfo`,
  });
  expect(meta).not.toHaveProperty('userinfo_signing_alg_values_supported');
});

describe('/end-session with an ID token', () => {
  const status = async (accessToken: string) =>
    (
      await h.infra.db.session.findUniqueOrThrow({
        where: { id: decodeJwt(accessToken).sid as string },
      })
    ).status;
  const endSession = async (rp: Awaited<ReturnType<typeof provisionRp>>, idToken: string) => {
    const url = new URL(`${h.url}/end-session`);
    url.searchParams.set('id_token_hint', idToken);
    url.searchParams.set('post_logout_redirect_uri', rp.postLogoutRedirectUri);
    expect((await fetch(url, { redirect: 'manual' })).status).toBe(303);
  };

  test("revokes the sessions of the sign-in session the hint's sid names, at every client it signed into", async () => {
    const rp = await provisionRp(h);
    const other = await provisionRp(h);
    const authTime = new Date(Math.floor(Date.now() / 1000 - 30) * 1000);
    const browserSessionId = `sign-in-${Math.random().toString(36).slice(2)}`;
    const inSignIn = (extra: Parameters<typeof grantFor>[1] = {}) => ({
      authTime,
      browserSessionId,
      ...extra,
    });
    const hinted = await exchange(h, rp, await codeFor(h, grantFor(rp, inSignIn())));
    const sameSignIn = await exchange(h, rp, await codeFor(h, grantFor(rp, inSignIn())));
    const otherClient = await exchange(
      h,
      other,
      await codeFor(h, grantFor(other, inSignIn({ accountId: rp.accountId }))),
    );
    // Another sign-in session of the same person at the same second, and an older one: not this one.
    const otherSignIn = await exchange(h, rp, await codeFor(h, grantFor(rp, { authTime })));
    const earlier = new Date(authTime.getTime() - 10_000);
    const olderSignIn = await exchange(h, rp, await codeFor(h, grantFor(rp, { authTime: earlier })));
    await endSession(rp, hinted.body.id_token);
    expect(await status(hinted.body.access_token)).toBe('REVOKED');
    expect(await status(sameSignIn.body.access_token)).toBe('REVOKED');
    expect(await status(otherClient.body.access_token)).toBe('REVOKED');
    expect(await status(otherSignIn.body.access_token)).toBe('ACTIVE');
    expect(await status(olderSignIn.body.access_token)).toBe('ACTIVE');
  });

  test('a hint without sid (issued before ID tokens carried one): the sign-in its auth_time states, its client only', async () => {
    const rp = await provisionRp(h);
    const other = await provisionRp(h);
    const authTime = new Date(Math.floor(Date.now() / 1000 - 30) * 1000);
    const hinted = await exchange(h, rp, await codeFor(h, grantFor(rp, { authTime })));
    const sameSecond = await exchange(h, rp, await codeFor(h, grantFor(rp, { authTime })));
    const earlier = new Date(authTime.getTime() - 10_000);
    const olderSignIn = await exchange(h, rp, await codeFor(h, grantFor(rp, { authTime: earlier })));
    const otherClient = await exchange(
      h,
      other,
      await codeFor(h, grantFor(other, { authTime, accountId: rp.accountId })),
    );
    // The same ID token as the host signed it, less its sid.
    const { sid: _sid, ...claims } = decodeJwt(hinted.body.id_token);
    const signer = (await h.deps.keyRing.signer(OIDC_SCOPE))!;
    const key = await importPKCS8(signer.key.export({ format: 'pem', type: 'pkcs8' }).toString(), 'RS256');
    const legacy = await new CompactSign(Buffer.from(JSON.stringify(claims)))
      .setProtectedHeader({ alg: 'RS256', kid: signer.kid, typ: 'JWT' })
      .sign(key);
    await endSession(rp, legacy);
    expect(await status(hinted.body.access_token)).toBe('REVOKED');
    expect(await status(sameSecond.body.access_token)).toBe('REVOKED');
    expect(await status(olderSignIn.body.access_token)).toBe('ACTIVE');
    expect(await status(otherClient.body.access_token)).toBe('ACTIVE');
  });
});
