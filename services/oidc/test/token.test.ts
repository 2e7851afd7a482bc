// /token against the running host: code exchange with each client authentication method, PKCE, client
// authentication failures, code replay revoking what the code issued, refresh grants with rotation and reuse
// detection. Every token is verified independently (jose and jsonwebtoken; the application's own key set).
import { createApplicationsStore } from '@svc/issuance/stores';
import { decodeJwt } from 'jose';
import {
  codeFor,
  exchange,
  grantFor,
  halfHash,
  pkcePair,
  postForm,
  provisionRp,
  refresh,
  useOidcHost,
  verifyAccessToken,
  verifyIdToken,
} from './token-kit';

const h = useOidcHost();

describe('authorization_code grant', () => {
  it('client_secret_basic: the application access token beside an ID token of the spec table', async () => {
    const rp = await provisionRp(h);
    const grant = grantFor(rp);
    const res = await exchange(h, rp, await codeFor(h, grant));
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('pragma')).toBe('no-cache');
    expect(Object.keys(res.body).sort()).toEqual(
      ['access_token', 'expires_in', 'id_token', 'refresh_token', 'scope', 'token_type'].sort(),
    );
    expect(res.body.token_type).toBe('Bearer');
    const access = await verifyAccessToken(h, res.body.access_token, rp);
    expect(Object.keys(access).sort()).toEqual(['aud', 'exp', 'iat', 'iss', 'jti', 'sid', 'sub']);
    expect(res.body.expires_in).toBe((access.exp ?? 0) - (access.iat ?? 0));
    const id = await verifyIdToken(h, res.body.id_token, rp.client.clientId);
    expect(id.iss).toBe(h.url);
    expect(id.aud).toBe(rp.client.clientId);
    expect(id.sub).toBe(access.sub);
    expect(id.sid).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(id.sid).not.toBe(access.sid);
    expect(id.nonce).toBe(grant.nonce);
    expect(id.auth_time).toBe(grant.authTime.getTime() / 1000);
    expect(id.at_hash).toBe(halfHash(res.body.access_token));
    expect(id).not.toHaveProperty('c_hash');
    expect(id.amr).toEqual(['hwk', 'user', 'mfa']);
    expect(id.acr).toBe('phrh');
    // No profile data in a /token ID token.
    for (const claim of ['email', 'name', 'given_name', 'family_name', 'picture'])
      expect(id).not.toHaveProperty(claim);
    const refreshClaims = decodeJwt(res.body.refresh_token);
    expect(refreshClaims.sid).toBe(access.sid);
  });

  it('client_secret_post works, and no refresh token without offline_access', async () => {
    const rp = await provisionRp(h, { authMethod: 'client_secret_post' });
    const res = await exchange(h, rp, await codeFor(h, grantFor(rp, { scope: 'openid email' })));
    expect(res.status).toBe(200);
    expect(res.body).not.toHaveProperty('refresh_token');
    expect(res.body.scope).toBe('openid email');
    await verifyIdToken(h, res.body.id_token, rp.client.clientId);
  });

  it('a public client (none) exchanges with PKCE; a wrong verifier is invalid_grant and burns the code', async () => {
    const rp = await provisionRp(h, { authMethod: 'none' });
    const { verifier, challenge } = pkcePair();
    const code = await codeFor(h, grantFor(rp, { codeChallenge: challenge }));
    const wrong = await exchange(h, rp, code, { code_verifier: pkcePair().verifier });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe('invalid_grant');
    expect(wrong.headers.get('cache-control')).toBe('no-store');
    // The code is single-use even after a failed check: the right verifier is too late.
    const late = await exchange(h, rp, code, { code_verifier: verifier });
    expect(late.body.error).toBe('invalid_grant');

    const fresh = await codeFor(h, grantFor(rp, { codeChallenge: challenge }));
    const ok = await exchange(h, rp, fresh, { code_verifier: verifier });
    expect(ok.status).toBe(200);
    await verifyIdToken(h, ok.body.id_token, rp.client.clientId);
  });

  it('PKCE: a missing verifier, and a verifier for a code without a challenge, are refused', async () => {
    const rp = await provisionRp(h);
    const { challenge } = pkcePair();
    const missing = await exchange(h, rp, await codeFor(h, grantFor(rp, { codeChallenge: challenge })));
    expect(missing.body.error).toBe('invalid_grant');
    const extra = await exchange(h, rp, await codeFor(h, grantFor(rp)), {
      code_verifier: pkcePair().verifier,
    });
    expect(extra.body.error).toBe('invalid_grant');
    const malformed = await exchange(h, rp, await codeFor(h, grantFor(rp)), { code_verifier: 'short' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toBe('invalid_request');
  });

  it('a public client without PKCE cannot exchange a code', async () => {
    const rp = await provisionRp(h, { authMethod: 'none' });
    const res = await exchange(h, rp, await codeFor(h, grantFor(rp)));
    expect(res.body.error).toBe('invalid_grant');
  });

  it('redirect_uri must equal the one of the authorization request', async () => {
    const rp = await provisionRp(h);
    const res = await exchange(h, rp, await codeFor(h, grantFor(rp)), { redirect_uri: `${rp.redirectUri}x` });
    expect(res.body.error).toBe('invalid_grant');
  });

  it('a code issued to another client is invalid_grant and stays unusable', async () => {
    const rp = await provisionRp(h);
    const other = await provisionRp(h);
    const code = await codeFor(h, grantFor(rp));
    const stolen = await exchange(h, { ...other, redirectUri: rp.redirectUri }, code);
    expect(stolen.body.error).toBe('invalid_grant');
    expect((await exchange(h, rp, code)).body.error).toBe('invalid_grant');
  });

  it('an expired code is invalid_grant', async () => {
    const rp = await provisionRp(h);
    const code = await codeFor(h, grantFor(rp));
    await h.infra.db.oidcAuthorizationCode.updateMany({
      where: { oidcClientId: rp.client.id },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    expect((await exchange(h, rp, code)).body.error).toBe('invalid_grant');
  });

  it('a replayed code is refused and revokes the session the first exchange issued', async () => {
    const rp = await provisionRp(h);
    const code = await codeFor(h, grantFor(rp));
    const first = await exchange(h, rp, code);
    expect(first.status).toBe(200);
    const userinfoOk = await fetch(`${h.url}/userinfo`, {
      headers: { authorization: `Bearer ${first.body.access_token}` },
    });
    expect(userinfoOk.status).toBe(200);
    const replay = await exchange(h, rp, code);
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe('invalid_grant');
    const sid = decodeJwt(first.body.access_token).sid as string;
    const session = await h.infra.db.session.findUniqueOrThrow({ where: { id: sid } });
    expect(session.status).toBe('REVOKED');
    const after = await fetch(`${h.url}/userinfo`, {
      headers: { authorization: `Bearer ${first.body.access_token}` },
    });
    expect(after.status).toBe(401);
    expect((await refresh(h, rp, first.body.refresh_token)).body.error).toBe('invalid_grant');
  });

  it('concurrent exchanges of one code: exactly one wins, and what it issued is revoked', async () => {
    const rp = await provisionRp(h);
    const code = await codeFor(h, grantFor(rp));
    const answers = await Promise.all(Array.from({ length: 4 }, () => exchange(h, rp, code)));
    const won = answers.filter((a) => a.status === 200);
    expect(won.length).toBeLessThanOrEqual(1);
    expect(answers.filter((a) => a.body?.error === 'invalid_grant')).toHaveLength(4 - won.length);
    for (const w of won) {
      const sid = decodeJwt(w.body.access_token).sid as string;
      const s = await h.infra.db.session.findUniqueOrThrow({ where: { id: sid } });
      expect(s.status).toBe('REVOKED');
    }
  });
});

describe('client authentication', () => {
  it('a wrong secret, an unknown client and a method other than the registered one are invalid_client', async () => {
    const rp = await provisionRp(h);
    const code = await codeFor(h, grantFor(rp));
    const base = { grant_type: 'authorization_code', code, redirect_uri: rp.redirectUri };
    const wrong = await postForm(h, base, { basic: [rp.client.clientId, `${rp.clientSecret}0`] });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe('invalid_client');
    expect(wrong.headers.get('www-authenticate')).toMatch(/^Basic /);
    const unknown = await postForm(h, base, { basic: ['oidc_nosuchclient', rp.clientSecret!] });
    expect(unknown.status).toBe(401);
    const asPost = await postForm(h, {
      ...base,
      client_id: rp.client.clientId,
      client_secret: rp.clientSecret,
    });
    expect(asPost.status).toBe(401);
    expect(asPost.body.error).toBe('invalid_client');
    const asPublic = await postForm(h, { ...base, client_id: rp.client.clientId });
    expect(asPublic.status).toBe(401);
    const none = await postForm(h, base);
    expect(none.status).toBe(401);
    // None of these consumed the code: the genuine client still exchanges it.
    const ok = await exchange(h, rp, code);
    expect(ok.status).toBe(200);
  });

  it('two methods at once is invalid_request; an unknown grant type is unsupported_grant_type', async () => {
    const rp = await provisionRp(h);
    const two = await postForm(
      h,
      { grant_type: 'authorization_code', client_secret: rp.clientSecret },
      { basic: [rp.client.clientId, rp.clientSecret!] },
    );
    expect(two.status).toBe(400);
    expect(two.body.error).toBe('invalid_request');
    const grant = await postForm(
      h,
      { grant_type: 'password' },
      { basic: [rp.client.clientId, rp.clientSecret!] },
    );
    expect(grant.body.error).toBe('unsupported_grant_type');
    expect(grant.headers.get('cache-control')).toBe('no-store');
  });

  it('a body that is not a form is invalid_request with no-store', async () => {
    const res = await fetch(`${h.url}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(((await res.json()) as { error: string }).error).toBe('invalid_request');
  });
});

describe('refresh_token grant', () => {
  it('rotates: no nonce, the same auth_time, amr and sub, a new at_hash; the old token reused revokes the family', async () => {
    const rp = await provisionRp(h);
    const grant = grantFor(rp);
    const first = await exchange(h, rp, await codeFor(h, grant));
    const firstId = await verifyIdToken(h, first.body.id_token, rp.client.clientId);

    const second = await refresh(h, rp, first.body.refresh_token);
    expect(second.status).toBe(200);
    expect(second.headers.get('cache-control')).toBe('no-store');
    const access = await verifyAccessToken(h, second.body.access_token, rp);
    const id = await verifyIdToken(h, second.body.id_token, rp.client.clientId);
    expect(id).not.toHaveProperty('nonce');
    expect(id).not.toHaveProperty('c_hash');
    expect(id.auth_time).toBe(firstId.auth_time);
    expect(id.sub).toBe(firstId.sub);
    expect(id.sub).toBe(access.sub);
    expect(id.amr).toEqual(firstId.amr);
    expect(id.acr).toBe(firstId.acr);
    expect(id.at_hash).toBe(halfHash(second.body.access_token));
    expect(id.at_hash).not.toBe(firstId.at_hash);
    expect(decodeJwt(second.body.refresh_token).rotationVersion).toBe(2);

    const third = await refresh(h, rp, second.body.refresh_token);
    expect(third.status).toBe(200);
    expect((await verifyIdToken(h, third.body.id_token, rp.client.clientId)).auth_time).toBe(
      firstId.auth_time,
    );

    // Reuse of a consumed version (outside the retry window: two rotations ago) revokes the whole family.
    const reuse = await refresh(h, rp, first.body.refresh_token);
    expect(reuse.status).toBe(400);
    expect(reuse.body.error).toBe('invalid_grant');
    const after = await refresh(h, rp, third.body.refresh_token);
    expect(after.body.error).toBe('invalid_grant');
    const s = await h.infra.db.session.findUniqueOrThrow({ where: { id: access.sid as string } });
    expect(s.status).toBe('REVOKED');
  });

  it('another client of the same application cannot use the refresh token, and it stays usable', async () => {
    const rp = await provisionRp(h);
    const first = await exchange(h, rp, await codeFor(h, grantFor(rp)));
    const { createOidcClient } = await import('@svc/provisioning');
    const created = await createOidcClient(h.infra.provisioning, {
      anchor: rp.anchor,
      redirectUris: [rp.redirectUri],
    });
    const sibling = {
      ...rp,
      client: (await h.deps.ports.clients.get(created.clientId))!,
      clientSecret: created.clientSecret,
    };
    const stolen = await refresh(h, sibling, first.body.refresh_token);
    expect(stolen.body.error).toBe('invalid_grant');
    expect((await refresh(h, rp, first.body.refresh_token)).status).toBe(200);
  });

  it('a session-host (APPLICATION) refresh token is not an OIDC refresh token', async () => {
    const rp = await provisionRp(h);
    const { issueSession } = await import('@svc/issuance');
    const application = (await createApplicationsStore(h.infra.db).loadApplication({ anchor: rp.anchor }))!;
    const app = await issueSession(h.infra.issuance, {
      application,
      principal: { kind: 'ACCOUNT', accountId: rp.accountId },
      authMethod: 'OIDC',
    });
    expect((await refresh(h, rp, app.refreshToken)).body.error).toBe('invalid_grant');
    expect((await refresh(h, rp, 'not.a.token')).body.error).toBe('invalid_grant');
  });
});
