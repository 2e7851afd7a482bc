// The session host's other endpoints: introspect, logout, revoke-all, userinfo, claim-state and JWK Sets.
import { issueSession } from '@svc/issuance';
import { createApplicationsStore } from '@svc/issuance/stores';
import { grantClaim, revokeKeyNow, setAccountStatus, setClaims } from '@svc/provisioning';
import {
  postJson,
  provisionAccount,
  provisionClientKey,
  settableClock,
  signClientAuth,
  waitUntil,
} from '@svc/testkit';
import { mintRefreshToken, newJti } from '@svc/token-core';
import { decodeJwt } from 'jose';
import { freshSession, issueFor, issueForWorkload, type SessionHarness, startSessionHost } from './support';

let h: SessionHarness;
beforeAll(async () => {
  h = await startSessionHost({ SESSION_CACHE_MS: '0' });
});
afterAll(() => h.close());

const get = async (path: string, token?: string) => {
  const res = await fetch(`${h.url}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
};

describe('POST /introspect', () => {
  it('reports active, then revoked after logout; ignores the token exp', async () => {
    const s = await freshSession(h.infra);
    // Issued four hours ago: the access token (3 h) has expired, the session (30 days) has not.
    const past = new Date(Date.now() - 4 * 3600_000);
    const issued = await issueSession(
      { ...h.infra.issuance, clock: settableClock(past) },
      {
        application: (await createApplicationsStore(h.infra.db).loadApplication({ anchor: s.app.anchor }))!,
        principal: { kind: 'ACCOUNT', accountId: s.account.id },
        authMethod: 'ACCESS_KEY_DIRECT',
      },
    );
    expect(decodeJwt(issued.accessToken).exp!).toBeLessThan(Date.now() / 1000);
    // Where the token's own exp counts, it is refused...
    expect((await get('/userinfo', issued.accessToken)).status).toBe(401);
    // ...introspection describes the session instead.
    const active = await postJson(`${h.url}/introspect`, { accessToken: issued.accessToken });
    expect(active.status).toBe(200);
    expect(active.body.status).toBe('active');
    expect(active.body.recommendedRecheckSeconds).toBeGreaterThanOrEqual(1);
    await postJson(`${h.url}/logout`, { refreshToken: issued.refreshToken });
    expect((await postJson(`${h.url}/introspect`, { accessToken: issued.accessToken })).body.status).toBe(
      'revoked',
    );
  });

  it('reports expired and not_found sessions', async () => {
    const { issued } = await freshSession(h.infra);
    await h.infra.db.session.update({
      where: { id: issued.sid },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    expect((await postJson(`${h.url}/introspect`, { accessToken: issued.accessToken })).body.status).toBe(
      'expired',
    );
    const gone = await freshSession(h.infra);
    await h.infra.db.session.delete({ where: { id: gone.issued.sid } });
    expect(
      (await postJson(`${h.url}/introspect`, { accessToken: gone.issued.accessToken })).body.status,
    ).toBe('not_found');
  });

  it('stops accepting tokens of an emergency-revoked key at once, even ones it verified before', async () => {
    const { app, issued } = await freshSession(h.infra);
    expect((await postJson(`${h.url}/introspect`, { accessToken: issued.accessToken })).body.status).toBe(
      'active',
    );
    const kid = JSON.parse(Buffer.from(issued.accessToken.split('.')[0]!, 'base64url').toString()).kid;
    const { provisioning, issuance } = h.infra;
    await revokeKeyNow(provisioning, issuance.kek, app.anchor, kid, issuance.clock);
    // The host hears of the revocation over Redis pub/sub: a few milliseconds, longer on a loaded machine.
    const introspect = () => postJson(`${h.url}/introspect`, { accessToken: issued.accessToken });
    await waitUntil(async () => (await introspect()).status === 401, 5000, 20);
    const after = await introspect();
    expect([after.status, after.body.reason]).toEqual([401, 'AccessTokenInvalid']);
    const jwks = await get(`/applications/${app.anchor}/jwks.json`);
    expect(jwks.body.keys.map((k: { kid: string }) => k.kid)).not.toContain(kid);
    expect((await postJson(`${h.url}/refresh`, { refreshToken: issued.refreshToken })).body.reason).toBe(
      'RefreshTokenInvalidSignature',
    );
  });

  it('rejects refresh tokens, garbage and bad bodies', async () => {
    const { issued } = await freshSession(h.infra);
    const wrongType = await postJson(`${h.url}/introspect`, { accessToken: issued.refreshToken });
    expect([wrongType.status, wrongType.body.reason]).toEqual([401, 'AccessTokenInvalid']);
    expect((await postJson(`${h.url}/introspect`, { accessToken: 'a.b.c' })).body.reason).toBe(
      'AccessTokenInvalid',
    );
    expect((await postJson(`${h.url}/introspect`, {})).body.reason).toBe('InvalidBody');
  });

  it('a workload token loses its session when the workload is revoked', async () => {
    const { app } = await freshSession(h.infra);
    const owner = await provisionAccount(h.infra);
    const { workload: w, issued } = await issueForWorkload(h.infra, app.anchor, 'AUTOMATION', owner.id);
    expect((await postJson(`${h.url}/introspect`, { accessToken: issued.accessToken })).body.status).toBe(
      'active',
    );
    await h.infra.db.workload.update({ where: { id: w.id }, data: { status: 'REVOKED' } });
    expect((await postJson(`${h.url}/introspect`, { accessToken: issued.accessToken })).body.status).toBe(
      'revoked',
    );
  });
});

describe('POST /logout', () => {
  it('is idempotent and accepts an older genuine version without making it refreshable', async () => {
    const { issued } = await freshSession(h.infra);
    const rotated = await postJson(`${h.url}/refresh`, { refreshToken: issued.refreshToken });
    expect(rotated.status).toBe(200);
    const first = await postJson(`${h.url}/logout`, { refreshToken: issued.refreshToken });
    expect(first.body).toEqual({ revoked: true });
    const second = await postJson(`${h.url}/logout`, { refreshToken: rotated.body.refreshToken });
    expect(second.body).toEqual({ revoked: true });
    expect(
      (await postJson(`${h.url}/refresh`, { refreshToken: rotated.body.refreshToken })).body.reason,
    ).toBe('RefreshTokenRevoked');
  });

  it('refuses a signed token for a version the session never handed out, and changes nothing', async () => {
    const { app, issued } = await freshSession(h.infra);
    const signer = (await h.infra.keyRing.signer(app.applicationId))!;
    const common = {
      issuer: h.infra.issuance.issuer,
      audience: app.anchor,
      sid: issued.sid,
      iat: Math.floor(Date.now() / 1000),
      ttlSeconds: 600,
    };
    // A version ahead of the session, and the current version under another jti: signed, but never issued.
    const ahead = await mintRefreshToken(signer, { ...common, jti: newJti(), rotationVersion: 2 });
    const otherJti = await mintRefreshToken(signer, { ...common, jti: newJti(), rotationVersion: 1 });
    for (const forged of [ahead.token, otherJti.token]) {
      for (const path of ['/logout', '/refresh']) {
        const res = await postJson(`${h.url}${path}`, { refreshToken: forged });
        expect([res.status, res.body.reason]).toEqual([401, 'RefreshTokenInvalid']);
      }
    }
    const session = await h.infra.db.session.findUniqueOrThrow({ where: { id: issued.sid } });
    expect([session.status, session.currentVersion]).toEqual(['ACTIVE', 1]);
    expect(session.currentJti).toBe(decodeJwt(issued.refreshToken).jti);
    expect((await postJson(`${h.url}/refresh`, { refreshToken: issued.refreshToken })).status).toBe(200);
  });

  it('binds every older version by its exact jti: a signed older version under another jti is refused', async () => {
    const { app, issued } = await freshSession(h.infra);
    const second = await postJson(`${h.url}/refresh`, { refreshToken: issued.refreshToken });
    const third = await postJson(`${h.url}/refresh`, { refreshToken: second.body.refreshToken });
    expect(third.status).toBe(200);
    const signer = (await h.infra.keyRing.signer(app.applicationId))!;
    // Versions 1 and 2 exist, signed by the service, but these tokens name them under jtis never issued.
    for (const version of [1, 2]) {
      const forged = await mintRefreshToken(signer, {
        issuer: h.infra.issuance.issuer,
        audience: app.anchor,
        sid: issued.sid,
        iat: Math.floor(Date.now() / 1000),
        ttlSeconds: 600,
        jti: newJti(),
        rotationVersion: version,
      });
      for (const path of ['/logout', '/refresh']) {
        const res = await postJson(`${h.url}${path}`, { refreshToken: forged.token });
        expect([res.status, res.body.reason]).toEqual([401, 'RefreshTokenInvalid']);
      }
    }
    // Nothing changed: no logout, no reuse detection.
    const session = await h.infra.db.session.findUniqueOrThrow({ where: { id: issued.sid } });
    expect([session.status, session.currentVersion]).toEqual(['ACTIVE', 3]);
    // The genuine older versions still authorize logout.
    const out = await postJson(`${h.url}/logout`, { refreshToken: second.body.refreshToken });
    expect(out.body).toEqual({ revoked: true });
  });

  it('refuses tokens that are not genuine refresh tokens', async () => {
    const { issued } = await freshSession(h.infra);
    expect((await postJson(`${h.url}/logout`, { refreshToken: issued.accessToken })).body.reason).toBe(
      'RefreshTokenInvalidType',
    );
    expect((await postJson(`${h.url}/logout`, { refreshToken: 'x' })).body.reason).toBe(
      'RefreshTokenInvalid',
    );
  });
});

describe('POST /revoke-all', () => {
  it('revokes every session of the subject under the calling application only', async () => {
    const s = await freshSession(h.infra);
    const second = await issueFor(h.infra, s.app.anchor, { kind: 'ACCOUNT', accountId: s.account.id });
    const { issued: agent } = await issueForWorkload(h.infra, s.app.anchor, 'AGENT', s.account.id);
    const elsewhere = await freshSession(h.infra);
    const otherApp = await issueFor(h.infra, elsewhere.app.anchor, {
      kind: 'ACCOUNT',
      accountId: s.account.id,
    });
    const ck = await provisionClientKey(h.infra, s.app.anchor);
    const body = JSON.stringify({ subject: s.issued.subject });
    const auth = await signClientAuth({ ...ck, iss: s.app.anchor, aud: 'service-session', body });
    const res = await postJson(`${h.url}/revoke-all`, body, { authorization: `ClientAuth ${auth}` });
    expect([res.status, res.body]).toEqual([200, { revoked: true }]);
    for (const t of [s.issued, second, agent]) {
      expect((await postJson(`${h.url}/introspect`, { accessToken: t.accessToken })).body.status).toBe(
        'revoked',
      );
    }
    expect((await postJson(`${h.url}/introspect`, { accessToken: otherApp.accessToken })).body.status).toBe(
      'active',
    );
    // Replay of the same signed request is refused with a bare 401.
    const replay = await postJson(`${h.url}/revoke-all`, body, { authorization: `ClientAuth ${auth}` });
    expect(replay.status).toBe(401);
    expect(replay.text).toBe('');
    expect(replay.headers.get('content-type')).toBeNull();
  });

  it('refuses a subject PostgreSQL cannot store (NUL, a lone surrogate) and compressed bodies, revoking nothing', async () => {
    const s = await freshSession(h.infra);
    const ck = await provisionClientKey(h.infra, s.app.anchor);
    const send = async (body: string, headers: Record<string, string> = {}) =>
      postJson(`${h.url}/revoke-all`, body, {
        authorization: `ClientAuth ${await signClientAuth({ ...ck, iss: s.app.anchor, aud: 'service-session', body })}`,
        ...headers,
      });
    // JSON escapes: the body is valid UTF-8 JSON; the strings it decodes to are what PostgreSQL cannot store.
    for (const subject of [
      `${s.issued.subject}\\u0000`,
      'a\\u0000b',
      '\\ud800',
      `${s.issued.subject}\\udfff`,
    ]) {
      const res = await send(`{"subject":"${subject}"}`);
      expect([res.status, res.body?.reason]).toEqual([400, 'InvalidBody']);
    }
    for (const encoding of ['br', 'gzip', 'deflate']) {
      const res = await send(JSON.stringify({ subject: s.issued.subject }), { 'content-encoding': encoding });
      expect([res.status, res.body?.reason]).toEqual([400, 'InvalidBody']);
    }
    expect((await postJson(`${h.url}/introspect`, { accessToken: s.issued.accessToken })).body.status).toBe(
      'active',
    );
  });

  it('acknowledges unknown subjects the same way and refuses bad client-auth', async () => {
    const s = await freshSession(h.infra);
    const ck = await provisionClientKey(h.infra, s.app.anchor);
    const body = JSON.stringify({ subject: 'ss_unknown' });
    const ok = await postJson(`${h.url}/revoke-all`, body, {
      authorization: `ClientAuth ${await signClientAuth({ ...ck, iss: s.app.anchor, aud: 'service-session', body })}`,
    });
    expect([ok.status, ok.body]).toEqual([200, { revoked: true }]);
    const bad: Record<string, string>[] = [
      {},
      { authorization: 'ClientAuth nope' },
      {
        authorization: `ClientAuth ${await signClientAuth({ ...ck, iss: s.app.anchor, aud: 'service-connect', body })}`,
      },
      {
        authorization: `ClientAuth ${await signClientAuth({ ...ck, iss: s.app.anchor, aud: 'service-session', body: '{}' })}`,
      },
      {
        authorization: `ClientAuth ${await signClientAuth({ ...ck, iss: s.app.anchor, aud: 'service-session', body, lifetimeSeconds: 120 })}`,
      },
      {
        authorization: `ClientAuth ${await signClientAuth({ ...ck, iss: s.app.anchor, aud: 'service-session', body, iatOffsetSeconds: -300 })}`,
      },
      {
        authorization: `ClientAuth ${await signClientAuth({ ...ck, iss: 'other-app', aud: 'service-session', body })}`,
      },
    ];
    for (const headers of bad) {
      const res = await postJson(`${h.url}/revoke-all`, body, headers);
      expect(res.status).toBe(401);
      expect(res.text).toBe('');
    }
  });
});

describe('GET /userinfo and /claim-state', () => {
  it('serves live data with the no-store headers and the five claim-state keys', async () => {
    const s = await freshSession(h.infra);
    await setClaims(h.infra.provisioning, s.app.anchor, {
      email: 'OPTIONAL',
      firstName: 'REQUIRED',
      lastName: 'OPTIONAL',
      staticAvatar: 'SYNTHETIC_ONLY',
    });
    await grantClaim(h.infra.provisioning, s.account.id, s.app.anchor, 'firstName', 'GRANTED');
    h.deps.apps.clear();
    const again = await issueFor(h.infra, s.app.anchor, { kind: 'ACCOUNT', accountId: s.account.id });
    const info = await get('/userinfo', again.accessToken);
    expect(info.status).toBe(200);
    expect(info.headers.get('cache-control')).toBe('no-store');
    expect(info.headers.get('pragma')).toBe('no-cache');
    expect(info.headers.get('vary')).toBe('Authorization');
    expect(info.body.sub).toBe(again.subject);
    expect(info.body.given_name).toBe('Ada');
    expect(info.body.email).toBeUndefined();
    expect(info.body.family_name).toBeUndefined();
    expect(info.body.picture).toMatch(/^https:\/\//);
    // Live: a grant made now shows at once.
    await grantClaim(h.infra.provisioning, s.account.id, s.app.anchor, 'email', 'GRANTED');
    expect((await get('/userinfo', again.accessToken)).body.email).toBe(s.account.email);
    const state = await get('/claim-state', again.accessToken);
    expect(state.status).toBe(200);
    expect(Object.keys(state.body.claims).sort()).toEqual([
      'email',
      'family_name',
      'given_name',
      'picture',
      'picture_animated',
    ]);
    expect(state.body.claims.given_name).toEqual({ requirement: 'REQUIRED', state: 'GRANTED' });
    expect(state.headers.get('vary')).toBe('Authorization');
  });

  it('fails with invalid_token and a Bearer challenge', async () => {
    const s = await freshSession(h.infra);
    for (const path of ['/userinfo', '/claim-state']) {
      for (const token of [undefined, 'garbage', s.issued.refreshToken]) {
        const res = await get(path, token);
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ error: 'invalid_token' });
        expect(res.headers.get('www-authenticate')).toMatch(/^Bearer /);
      }
    }
    await setAccountStatus(h.infra.provisioning, s.account.id, 'DISABLED');
    expect((await get('/userinfo', s.issued.accessToken)).status).toBe(401);
    const o = await freshSession(h.infra);
    await h.infra.db.session.update({ where: { id: o.issued.sid }, data: { protocol: 'OIDC' } });
    expect((await get('/claim-state', o.issued.accessToken)).body).toEqual({ error: 'invalid_token' });
  });

  it('discloses an empty surname for an approved account without one', async () => {
    const s = await freshSession(h.infra);
    await setClaims(h.infra.provisioning, s.app.anchor, { lastName: 'REQUIRED' });
    h.deps.apps.clear();
    const acct = await provisionAccount(h.infra, { givenName: 'Mononym' });
    await grantClaim(h.infra.provisioning, acct.id, s.app.anchor, 'lastName', 'GRANTED');
    const t = await issueFor(h.infra, s.app.anchor, { kind: 'ACCOUNT', accountId: acct.id });
    expect((await get('/userinfo', t.accessToken)).body.family_name).toBe('');
  });
});

describe('GET /applications/{anchor}/jwks.json', () => {
  it('serves public keys only, cacheable within the prepublication window', async () => {
    const s = await freshSession(h.infra);
    const res = await get(`/applications/${s.app.anchor}/jwks.json`);
    expect(res.status).toBe(200);
    // The defaults: prepublication 24 h, so max-age is the 300 s ceiling.
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    expect(res.body.keys.length).toBeGreaterThanOrEqual(1);
    for (const k of res.body.keys) {
      expect(Object.keys(k).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
      expect([k.kty, k.use, k.alg]).toEqual(['RSA', 'sig', 'RS256']);
    }
  });

  it('max-age is the prepublication window when that is shorter, and never above 300 s', async () => {
    const s = await freshSession(h.infra);
    for (const [env, maxAge] of [
      [{ KEY_PREPUBLISH_SECONDS: '120' }, 120],
      [{ KEY_PREPUBLISH_SECONDS: '120', JWKS_MAX_AGE_SECONDS: '60' }, 60],
      [{ JWKS_MAX_AGE_SECONDS: '900' }, 300],
    ] as const) {
      const other = await startSessionHost(env);
      try {
        const res = await fetch(`${other.url}/applications/${s.app.anchor}/jwks.json`);
        expect([res.status, res.headers.get('cache-control')]).toEqual([200, `public, max-age=${maxAge}`]);
      } finally {
        await other.close();
      }
    }
  });

  it('answers ApplicationNotFound for unknown or invalid anchors', async () => {
    // An anchor that does not percent-decode is not a valid anchor either: the documented reason, not a bare 404.
    for (const anchor of [
      'no-such-app-here',
      'BAD',
      'a',
      'x'.repeat(70),
      '%ZZ',
      'app-%E0%A4%A',
      '%ED%A0%80',
    ]) {
      const res = await get(`/applications/${anchor}/jwks.json`);
      expect([res.status, res.body.reason]).toEqual([404, 'ApplicationNotFound']);
    }
  });
});
