// /userinfo, /claim-state and /end-session against the running host, and platform key rotation while a relying
// party holds a cached JWKS (jose createRemoteJWKSet).
import { issueSession } from '@svc/issuance';
import { createAccountsStore, createApplicationsStore } from '@svc/issuance/stores';
import { activateNextKey, OIDC_SCOPE, prepublishRotation, publishKeyChange } from '@svc/keyring';
import { grantClaim } from '@svc/provisioning';
import { waitUntil } from '@svc/testkit';
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import {
  codeFor,
  exchange,
  grantFor,
  postForm,
  provisionRp,
  statementsDuring,
  useOidcHost,
  verifyIdToken,
} from './token-kit';

const h = useOidcHost();

const bearer = (token: string, method = 'GET') =>
  fetch(`${h.url}/userinfo`, { method, headers: { authorization: `Bearer ${token}` } });

describe('/userinfo and /claim-state', () => {
  it('GET and POST answer claims by scope, consent and claim policy, never cached', async () => {
    const rp = await provisionRp(h, {
      claims: { email: 'OPTIONAL', firstName: 'OPTIONAL', lastName: 'OPTIONAL' },
    });
    await grantClaim(h.infra.provisioning, rp.accountId, rp.anchor, 'email', 'GRANTED');
    await grantClaim(h.infra.provisioning, rp.accountId, rp.anchor, 'firstName', 'GRANTED');
    await grantClaim(h.infra.provisioning, rp.accountId, rp.anchor, 'lastName', 'DENIED');
    const tokens = (await exchange(h, rp, await codeFor(h, grantFor(rp)))).body;
    const sub = decodeJwt(tokens.access_token).sub;
    for (const method of ['GET', 'POST']) {
      const res = await bearer(tokens.access_token, method);
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      // Origin: the answer's CORS headers follow the token's client's registered web origins.
      expect(res.headers.get('vary')).toBe('Authorization, Origin');
      const body = (await res.json()) as Record<string, unknown>;
      expect(body.sub).toBe(sub);
      expect(body.email).toMatch(/@example\.test$/);
      expect(body.given_name).toBe('Ada');
      expect(body.name).toBe('Ada');
      expect(body).not.toHaveProperty('family_name');
    }
    // Scope openid email only: no profile claims whatever the consent.
    const narrow = (await exchange(h, rp, await codeFor(h, grantFor(rp, { scope: 'openid email' })))).body;
    const body = (await (await bearer(narrow.access_token)).json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['email', 'email_verified', 'sub']);

    const state = await fetch(`${h.url}/claim-state`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(state.status).toBe(200);
    const view = (await state.json()) as { sub: string; claims: Record<string, { state: string }> };
    expect(view.sub).toBe(sub);
    expect(view.claims.email!.state).toBe('GRANTED');
    expect(view.claims.family_name!.state).toBe('DENIED');
  });

  it('one read a request: the session, its account and the grants in one statement', async () => {
    const rp = await provisionRp(h, { claims: { email: 'OPTIONAL' } });
    await grantClaim(h.infra.provisioning, rp.accountId, rp.anchor, 'email', 'GRANTED');
    const tokens = (await exchange(h, rp, await codeFor(h, grantFor(rp)))).body;
    // Warms the application and key caches, as a relying party's first call does.
    expect((await bearer(tokens.access_token)).status).toBe(200);
    for (const path of ['/userinfo', '/claim-state']) {
      let status = 0;
      const statements = await statementsDuring(h, async () => {
        const res = await fetch(`${h.url}${path}`, {
          headers: { authorization: `Bearer ${tokens.access_token}` },
        });
        status = res.status;
      });
      expect(status).toBe(200);
      expect(statements.map((s) => s.split(' ')[0])).toEqual(['oidc_userinfo_read_v3']);
    }
    // The same read refuses a session whose account was disabled since.
    await h.infra.db.account.update({ where: { id: rp.accountId }, data: { status: 'DISABLED' } });
    expect((await bearer(tokens.access_token)).status).toBe(401);
  });

  it('issue 25: refuses a token whose session was issued under an authority the account no longer has', async () => {
    const rp = await provisionRp(h, { claims: { email: 'OPTIONAL' } });
    const tokens = (await exchange(h, rp, await codeFor(h, grantFor(rp)))).body;
    expect((await bearer(tokens.access_token)).status).toBe(200);
    // The account's authority moves (a passkey removed) without the session row being revoked: an issue that
    // raced the removal. The session is ended all the same, as its refresh would be.
    await h.infra.db.account.update({
      where: { id: rp.accountId },
      data: { authorityVersion: { increment: 1 } },
    });
    const res = await bearer(tokens.access_token);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('refuses a missing, malformed, foreign-protocol or revoked token with a Bearer challenge', async () => {
    const rp = await provisionRp(h);
    const none = await fetch(`${h.url}/userinfo`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="oidc"');
    expect(((await none.json()) as { error: string }).error).toBe('invalid_token');
    const bad = await bearer('not-a-token');
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toContain('error="invalid_token"');
    // A session-host (APPLICATION protocol) token of the same application is not an OIDC token.
    const application = (await createApplicationsStore(h.infra.db).loadApplication({ anchor: rp.anchor }))!;
    const app = await issueSession(h.infra.issuance, {
      application,
      principal: { kind: 'ACCOUNT', accountId: rp.accountId },
      authMethod: 'OIDC',
    });
    expect((await bearer(app.accessToken)).status).toBe(401);
    const claimState = await fetch(`${h.url}/claim-state`, {
      headers: { authorization: `Bearer ${app.accessToken}` },
    });
    expect(claimState.status).toBe(401);
  });

  it('refuses a workload token however valid its signature', async () => {
    const rp = await provisionRp(h);
    const workload = await h.infra.db.workload.create({
      data: { kind: 'AGENT', ownerAccountId: rp.accountId, name: 'agent' },
    });
    const application = (await createApplicationsStore(h.infra.db).loadApplication({ anchor: rp.anchor }))!;
    const issued = await issueSession(h.infra.issuance, {
      application,
      principal: { kind: 'AGENT', accountId: rp.accountId, workloadId: workload.id, workloadGeneration: 1 },
      authMethod: 'OIDC',
      protocol: 'OIDC',
    });
    expect(decodeProtectedHeader(issued.accessToken).typ).toBe('vnd.service.workload-access+jwt');
    expect((await bearer(issued.accessToken)).status).toBe(401);
  });
});

describe('/end-session', () => {
  it('with id_token_hint: revokes the hinted session, redirects to the registered URI with state', async () => {
    const rp = await provisionRp(h);
    const tokens = (await exchange(h, rp, await codeFor(h, grantFor(rp)))).body;
    const url = new URL(`${h.url}/end-session`);
    url.searchParams.set('id_token_hint', tokens.id_token);
    url.searchParams.set('post_logout_redirect_uri', rp.postLogoutRedirectUri);
    url.searchParams.set('state', 'xyz 1');
    // The person's sign-in on the OIDC host ends too.
    const signIn = await h.deps.ports.signInSessions.start(undefined, {
      accountId: rp.accountId,
      authority: (await createAccountsStore(h.infra.db).currentAuthority(rp.accountId))!,
      authTime: Math.floor(Date.now() / 1000),
      amr: ['hwk', 'user'],
    });
    const res = await fetch(url, { redirect: 'manual', headers: { cookie: `oidc_session=${signIn.id}` } });
    expect(res.status).toBe(303);
    expect(await h.deps.ports.signInSessions.read(signIn.id)).toBeUndefined();
    expect(res.headers.get('set-cookie')).toMatch(/^oidc_session=;/);
    const to = new URL(res.headers.get('location')!);
    expect(`${to.origin}${to.pathname}`).toBe(rp.postLogoutRedirectUri);
    expect(to.searchParams.get('state')).toBe('xyz 1');
    const sid = decodeJwt(tokens.access_token).sid as string;
    expect((await h.infra.db.session.findUniqueOrThrow({ where: { id: sid } })).status).toBe('REVOKED');
    expect((await bearer(tokens.access_token)).status).toBe(401);
    const refreshed = await postForm(
      h,
      { grant_type: 'refresh_token', refresh_token: tokens.refresh_token },
      { basic: [rp.client.clientId, rp.clientSecret!] },
    );
    expect(refreshed.body.error).toBe('invalid_grant');
    // Idempotent: the same hint again still redirects.
    expect((await fetch(url, { redirect: 'manual' })).status).toBe(303);
  });

  it('ends the hinted sign-in session in one statement, by the hint’s sid (no separate lookup)', async () => {
    const rp = await provisionRp(h);
    const tokens = (await exchange(h, rp, await codeFor(h, grantFor(rp)))).body;
    const url = new URL(`${h.url}/end-session`);
    url.searchParams.set('id_token_hint', tokens.id_token);
    url.searchParams.set('post_logout_redirect_uri', rp.postLogoutRedirectUri);
    let status = 0;
    const statements = await statementsDuring(h, async () => {
      status = (await fetch(url, { redirect: 'manual' })).status;
    });
    expect(status).toBe(303);
    expect(statements.filter((s) => /sector_subjects/.test(s))).toEqual([]);
    // The revocation finds the sign-in session's sessions at every client by the hint's sid (oidc_sessions, indexed)
    // and queues each client's back-channel logout token (#39) in the same statement: no read before it.
    const revocation = /UPDATE sessions s SET status = 'REVOKED'/;
    expect(statements.filter((s) => /oidc_sessions/.test(s) && !revocation.test(s))).toEqual([]);
    expect(statements.filter((s) => revocation.test(s))).toHaveLength(1);
    const sid = decodeJwt(tokens.access_token).sid as string;
    expect((await h.infra.db.session.findUniqueOrThrow({ where: { id: sid } })).status).toBe('REVOKED');
  });

  it('an unregistered post_logout_redirect_uri or a forged hint gets a page, never a redirect, and revokes nothing', async () => {
    const rp = await provisionRp(h);
    const tokens = (await exchange(h, rp, await codeFor(h, grantFor(rp)))).body;
    const url = new URL(`${h.url}/end-session`);
    url.searchParams.set('id_token_hint', tokens.id_token);
    url.searchParams.set('post_logout_redirect_uri', 'https://evil.example/');
    const res = await fetch(url, { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const [head, payload] = tokens.id_token.split('.');
    const forged = `${head}.${payload}.${'A'.repeat(342)}`;
    const forgedRes = await fetch(`${h.url}/end-session?id_token_hint=${forged}`, { redirect: 'manual' });
    expect(forgedRes.status).toBe(400);
    expect((await bearer(tokens.access_token)).status).toBe(200);
  });

  it('a repeated, over-long or non-text parameter (query or form) is the error page: no redirect, nothing revoked', async () => {
    const rp = await provisionRp(h);
    const tokens = (await exchange(h, rp, await codeFor(h, grantFor(rp)))).body;
    const hint = `id_token_hint=${tokens.id_token}`;
    const back = `post_logout_redirect_uri=${encodeURIComponent(rp.postLogoutRedirectUri)}`;
    for (const bad of [`${hint}&${hint}`, `${hint}&state=${'s'.repeat(8193)}`, `${hint}&client_id=a%00b`]) {
      const res = await fetch(`${h.url}/end-session?${bad}&${back}`, { redirect: 'manual' });
      expect([res.status, res.headers.get('location')]).toEqual([400, null]);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      const form = await fetch(`${h.url}/end-session`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `${bad}&${back}`,
      });
      expect([form.status, form.headers.get('location')]).toEqual([400, null]);
    }
    expect((await bearer(tokens.access_token)).status).toBe(200);
  });

  it('without a hint: a confirmation page; only the confirmed POST with its CSRF value signs out', async () => {
    const rp = await provisionRp(h);
    const page = await fetch(
      `${h.url}/end-session?client_id=${rp.client.clientId}&post_logout_redirect_uri=${encodeURIComponent(rp.postLogoutRedirectUri)}&state=s1`,
      { headers: { 'accept-language': 'zh-CN' } },
    );
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await page.text();
    expect(html).toContain('退出登录');
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)![1]!;
    const cookie = page.headers.get('set-cookie')!.split(';')[0]!;
    const form = (fields: Record<string, string>) =>
      fetch(`${h.url}/end-session`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
        body: new URLSearchParams(fields).toString(),
      });
    const base = {
      client_id: rp.client.clientId,
      post_logout_redirect_uri: rp.postLogoutRedirectUri,
      state: 's1',
    };
    // A cross-site POST without the CSRF value only shows the page again.
    const forged = await form({ ...base, confirm: 'yes', csrf: 'x'.repeat(csrf.length) });
    expect(forged.status).toBe(200);
    const ok = await form({ ...base, confirm: 'yes', csrf });
    expect(ok.status).toBe(303);
    expect(ok.headers.get('location')).toBe(`${rp.postLogoutRedirectUri}?state=s1`);
  });
});

describe('platform key rotation', () => {
  it('a relying party holding a cached JWKS verifies ID tokens across a rotation; the host serves new keys without a restart', async () => {
    const rp = await provisionRp(h);
    const jwks = createRemoteJWKSet(new URL(`${h.url}/.well-known/jwks.json`), { cooldownDuration: 0 });
    const before = (await exchange(h, rp, await codeFor(h, grantFor(rp)))).body.id_token as string;
    await jwtVerify(before, jwks, { issuer: h.url, audience: rp.client.clientId });
    const oldKid = decodeProtectedHeader(before).kid;

    // `keys rotate --oidc` then its activation (as --now does), announced over Redis like the admin tool does.
    const { kek } = h.infra.issuance;
    const windows = { publishedSeconds: 0, keyCacheTtlMs: 30_000 };
    const at = new Date(h.infra.issuance.clock());
    await prepublishRotation(h.infra.db, kek, OIDC_SCOPE, windows, at);
    await activateNextKey(h.infra.db, kek, OIDC_SCOPE, {
      force: true,
      keyCacheTtlMs: windows.keyCacheTtlMs,
      at,
    });
    await publishKeyChange(h.infra.redis, OIDC_SCOPE);
    let after = '';
    await waitUntil(async () => {
      after = (await exchange(h, rp, await codeFor(h, grantFor(rp)))).body.id_token;
      return decodeProtectedHeader(after).kid !== oldKid;
    });
    // The cached set misses the new kid, refetches once, and verifies; the retired key stays published.
    await jwtVerify(after, jwks, { issuer: h.url, audience: rp.client.clientId });
    await jwtVerify(before, jwks, { issuer: h.url, audience: rp.client.clientId });
    const published = (
      (await (await fetch(`${h.url}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] }
    ).keys.map((k) => k.kid);
    expect(published).toEqual(expect.arrayContaining([oldKid, decodeProtectedHeader(after).kid]));
    await verifyIdToken(h, after, rp.client.clientId);
  });
});
