// An attacker's view of the OIDC host, each attack one test against the running host: redirect URI look-alikes
// never redirected to, markup in `state` inert on the form_post page, forged posts on the interaction pages
// refused before they change anything, pages that refuse framing, and /end-session: another person's (genuine) ID
// token never signs the browser's person out, a hint of one client never redirects to another's URI.
import { createAccountsStore } from '@svc/issuance/stores';
import { uniqueName } from '@svc/testkit';
import { decodeJwt } from 'jose';
import { provisionRelyingParty, type RelyingPartyFixture, startOidcPages, useOidcPages } from './pages-kit';
import { codeFor, exchange, grantFor, provisionRp } from './token-kit';

const host = useOidcPages();
let rp: RelyingPartyFixture;
const REDIRECT = `https://${uniqueName('rp')}.example/cb`;

beforeAll(async () => {
  rp = await provisionRelyingParty(host, { redirectUris: [REDIRECT] });
});

function authorizeUrl(over: Record<string, string>): string {
  const q = new URLSearchParams({
    client_id: rp.clientId,
    redirect_uri: REDIRECT,
    response_type: 'code',
    scope: 'openid email',
    state: 'st-1',
    ...over,
  });
  return `${host.url}/authorize?${q}`;
}

const get = (url: string, headers: Record<string, string> = {}) =>
  fetch(url, { redirect: 'manual', headers: { 'accept-language': 'en-US', ...headers } });

/** The page's CSP as a map of directive to its value. */
function csp(res: Response): Map<string, string> {
  const out = new Map<string, string>();
  for (const d of (res.headers.get('content-security-policy') ?? '').split(';')) {
    const [name, ...rest] = d.trim().split(/\s+/);
    if (name) out.set(name, rest.join(' '));
  }
  return out;
}

describe('redirect_uri: exact match only', () => {
  test('every look-alike of the registered URI is the error page, never a redirect', async () => {
    const u = new URL(REDIRECT);
    const lookAlikes = [
      `${REDIRECT}/`,
      `${REDIRECT}x`,
      `${REDIRECT}/../evil`,
      `${REDIRECT}/%2e%2e/evil`,
      `${u.origin}/CB`,
      `https://${u.host.toUpperCase()}/cb`,
      `https://${u.host}:443/cb`,
      `https://${u.host}./cb`,
      `https://evil.example@${u.host}/cb`,
      `https://${u.host}@evil.example/cb`,
      `https://${u.host}.evil.example/cb`,
      `http://${u.host}/cb`,
      `${REDIRECT}#frag`,
      `${REDIRECT}?next=https://evil.example`,
      `${REDIRECT}%20`,
      ` ${REDIRECT}`,
      `//${u.host}/cb`,
    ];
    for (const redirect_uri of lookAlikes) {
      const res = await get(authorizeUrl({ redirect_uri }));
      expect([redirect_uri, res.status, res.headers.get('location')]).toEqual([redirect_uri, 400, null]);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(csp(res).get('frame-ancestors')).toBe("'none'");
      // The message names no request input (the look-alike would be a phishing link on our own origin); only
      // the language switch leads to the same request on this host.
      const main = (await res.text()).split('<main')[1] ?? '';
      expect(main).toContain('not registered');
      expect(main).not.toContain('evil.example');
    }
    // The registered URI itself is accepted: the look-alikes failed on the match, not on something else.
    expect((await get(authorizeUrl({}))).status).toBe(303);
  });

  test('an unknown client with a redirect URI and an error-causing request is a page, never a redirect', async () => {
    const res = await get(
      authorizeUrl({ client_id: 'oidc_nobody', redirect_uri: 'https://evil.example/cb', response_type: 'x' }),
    );
    expect([res.status, res.headers.get('location')]).toEqual([400, null]);
  });
});

describe('form_post', () => {
  test('markup in state is escaped on the auto-submitting page, under a nonce CSP that refuses framing', async () => {
    const state = `"><script>alert(1)</script><img src=x onerror=alert(2)>`;
    // response_type id_token without a nonce: the error goes to the (trusted) redirect URI by form_post.
    const res = await get(
      authorizeUrl({ response_type: 'id_token', response_mode: 'form_post', state, scope: 'openid' }),
    );
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<img');
    expect(html).toContain('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html.match(/<script/g)).toHaveLength(1);
    const policy = csp(res);
    expect(policy.get('script-src')).toMatch(/^'nonce-[A-Za-z0-9_-]+'$/);
    expect(policy.get('frame-ancestors')).toBe("'none'");
    expect(policy.get('form-action')).toBe(new URL(REDIRECT).origin);
  });
});

describe('the interaction pages', () => {
  /** A parked request's page, opened in a fresh browser: its path, flow cookie and CSRF token. */
  async function openInteraction() {
    const parked = await get(authorizeUrl({}));
    const path = (parked.headers.get('location') ?? '').split('?')[0]!;
    const page = await get(`${host.url}${path}`);
    const cookie = page.headers
      .getSetCookie()
      .map((c) => c.split(';')[0]!)
      .filter((c) => c.startsWith('oidc_flow='))
      .join('; ');
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1];
    return { path, page, cookie, csrf: csrf! };
  }

  const post = (path: string, body: Record<string, string>, headers: Record<string, string>) =>
    fetch(`${host.url}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(body).toString(),
    });

  test('refuse framing (clickjacking) and are never cached', async () => {
    const { page } = await openInteraction();
    expect(page.status).toBe(200);
    expect(csp(page).get('frame-ancestors')).toBe("'none'");
    expect(page.headers.get('cache-control')).toBe('no-store');
  });

  test('a forged cancel (no token, a wrong token, another origin) is 403 and the client hears nothing', async () => {
    const { path, cookie, csrf } = await openInteraction();
    expect(csrf).toMatch(/.{20,}/);
    const forged = [
      post(`${path}/cancel`, {}, { cookie }),
      post(`${path}/cancel`, { _csrf: 'x'.repeat(csrf.length) }, { cookie }),
      post(`${path}/cancel`, { _csrf: csrf }, { cookie, origin: 'https://evil.example' }),
      // Another browser (its own flow) holding the victim's token: the token is bound to the flow.
      post(`${path}/cancel`, { _csrf: csrf }, {}),
    ];
    for (const res of await Promise.all(forged)) {
      expect([res.status, res.headers.get('location')]).toEqual([403, null]);
    }
    // The request is still open: the genuine post answers the client (access_denied, with state and iss).
    const genuine = await post(`${path}/cancel`, { _csrf: csrf }, { cookie, origin: host.url });
    expect(genuine.status).toBe(303);
    const to = new URL(genuine.headers.get('location') ?? '');
    expect(`${to.origin}${to.pathname}`).toBe(REDIRECT);
    expect(to.searchParams.get('error')).toBe('access_denied');
    expect(to.searchParams.get('state')).toBe('st-1');
    expect(to.searchParams.get('iss')).toBe(host.url);
  });

  test('an interaction id that does not percent-decode is a plain 404 page, not a server error', async () => {
    for (const method of ['GET', 'POST']) {
      for (const path of [
        '/interaction/%ED%A0%80',
        '/interaction/%E0%A4%A/cancel',
        '/interaction/%C0%AF/passkey/authentication',
      ]) {
        const res = await fetch(`${host.url}${path}`, { method, redirect: 'manual' });
        const text = await res.text();
        expect([method, path, res.status]).toEqual([method, path, 404]);
        expect(text).not.toMatch(/URIError|decode param|\n\s+at /);
      }
    }
  });

  test("the pages' assets: a name of an object's inherited member is a plain 404, not a server error", async () => {
    for (const name of [
      'constructor',
      '__proto__',
      'toString',
      'hasOwnProperty',
      '%ED%A0%80',
      'nothing.js',
    ]) {
      const res = await fetch(`${host.url}/assets/${name}`);
      expect([name, res.status]).toEqual([name, 404]);
    }
    expect((await fetch(`${host.url}/assets/signin.css`)).status).toBe(200);
  });

  test('a forged consent review changes no consent', async () => {
    const { path, cookie } = await openInteraction();
    const res = await post(`${path}/review`, { email: 'GRANTED' }, { cookie });
    expect([res.status, res.headers.get('location')]).toEqual([403, null]);
  });
});

describe('authorization codes', () => {
  test('one code raced on two replicas by its client and by a thief client: at most one wins, and is revoked', async () => {
    const replica = await startOidcPages({ issuer: host.url });
    try {
      const victim = await provisionRp(host);
      const thief = await provisionRp(host);
      const code = await codeFor(host, grantFor(victim));
      const answers = await Promise.all([
        exchange(host, victim, code),
        exchange(replica, victim, code),
        exchange(host, thief, code),
        exchange(replica, thief, code),
        exchange(replica, victim, code),
        exchange(host, victim, code),
      ]);
      const won = answers.filter((a) => a.status === 200);
      expect(won.length).toBeLessThanOrEqual(1);
      expect(answers.filter((a) => a.status === 400 && a.body?.error === 'invalid_grant')).toHaveLength(
        answers.length - won.length,
      );
      // The thief never holds tokens; whatever the winner got is revoked by the replays.
      for (const w of won) {
        expect(decodeJwt(w.body.id_token).aud).toBe(victim.client.clientId);
        const sid = decodeJwt(w.body.access_token).sid as string;
        const row = await host.infra.db.session.findUniqueOrThrow({ where: { id: sid } });
        expect(row.status).toBe('REVOKED');
      }
      // However the race went, the code is spent for everyone.
      expect((await exchange(host, victim, code)).body?.error).toBe('invalid_grant');
    } finally {
      await replica.close();
    }
  });
});

describe('/end-session', () => {
  const endSession = (params: Record<string, string>, cookie?: string) =>
    fetch(`${host.url}/end-session?${new URLSearchParams(params)}`, {
      redirect: 'manual',
      headers: cookie ? { cookie } : {},
    });

  test("a genuine ID token of someone else never ends the browser's sign-in (logout CSRF)", async () => {
    // The attacker signs in to some client as themselves and keeps the ID token.
    const attacker = await provisionRp(host);
    const theirs = (await exchange(host, attacker, await codeFor(host, grantFor(attacker)))).body;
    // The victim is signed in on the OIDC host in their browser.
    const victim = await provisionRp(host);
    const held = await host.deps.ports.signInSessions.start(undefined, {
      accountId: victim.accountId,
      authority: (await createAccountsStore(host.infra.db).currentAuthority(victim.accountId))!,
      authTime: Math.floor(Date.now() / 1000),
      amr: ['hwk', 'user', 'mfa'],
    });
    // The victim's browser is sent to /end-session with the attacker's token and registered URI.
    const res = await endSession(
      { id_token_hint: theirs.id_token, post_logout_redirect_uri: attacker.postLogoutRedirectUri },
      `oidc_session=${held.id}`,
    );
    expect(res.status).toBe(303);
    expect(await host.deps.ports.signInSessions.read(held.id)).toEqual(held.session);
    expect(res.headers.getSetCookie().some((c) => c.startsWith('oidc_session='))).toBe(false);

    // The same request from the token's own person ends their sign-in, as documented.
    const own = await host.deps.ports.signInSessions.start(undefined, {
      accountId: attacker.accountId,
      authority: (await createAccountsStore(host.infra.db).currentAuthority(attacker.accountId))!,
      authTime: Math.floor(Date.now() / 1000),
      amr: ['hwk', 'user', 'mfa'],
    });
    const mine = await endSession(
      { id_token_hint: theirs.id_token, post_logout_redirect_uri: attacker.postLogoutRedirectUri },
      `oidc_session=${own.id}`,
    );
    expect(mine.status).toBe(303);
    expect(await host.deps.ports.signInSessions.read(own.id)).toBeUndefined();
    expect(mine.headers.getSetCookie()).toContainEqual(expect.stringMatching(/^oidc_session=;/));
  });

  test("one client's hint never redirects to another client's URI, nor with a contradicting client_id", async () => {
    const a = await provisionRp(host);
    const b = await provisionRp(host);
    const hint = (await exchange(host, a, await codeFor(host, grantFor(a)))).body.id_token as string;
    const cases: Record<string, string>[] = [
      { id_token_hint: hint, post_logout_redirect_uri: b.postLogoutRedirectUri },
      {
        id_token_hint: hint,
        client_id: b.client.clientId,
        post_logout_redirect_uri: b.postLogoutRedirectUri,
      },
      { id_token_hint: hint, client_id: b.client.clientId },
    ];
    for (const params of cases) {
      const res = await endSession(params);
      expect([res.status, res.headers.get('location')]).toEqual([400, null]);
    }
  });

  test('a malformed sign-in cookie is no sign-in, not a server error', async () => {
    const a = await provisionRp(host);
    const hint = (await exchange(host, a, await codeFor(host, grantFor(a)))).body.id_token as string;
    const res = await endSession({ id_token_hint: hint }, 'oidc_session=%E0%A4%A');
    expect(res.status).toBe(200);
    expect(csp(res).get('frame-ancestors')).toBe("'none'");
    expect(await res.text()).not.toMatch(/Error|at \w+ \(/);
  });
});
