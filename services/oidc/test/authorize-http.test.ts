// /authorize over HTTP against the running host: an untrusted client or redirect URI gets a page and no redirect;
// errors go to the redirect URI in the right mode with state and iss; a valid request is parked for the pages; a
// browser without a sign-in asking prompt=none hears login_required; the interaction page is the sign-in page.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createMetrics, serveMetrics } from '@svc/platform';
import { uniqueName } from '@svc/testkit';
import {
  authorizeRequestUrl,
  provisionRelyingParty,
  type RelyingPartyFixture,
  useOidcPages,
} from './pages-kit';

const host = useOidcPages();
let rp: RelyingPartyFixture;
let publicRp: RelyingPartyFixture;
const REDIRECT = `https://${uniqueName('rp')}.example/cb`;
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

beforeAll(async () => {
  rp = await provisionRelyingParty(host, { redirectUris: [REDIRECT] });
  publicRp = await provisionRelyingParty(host, {
    redirectUris: [REDIRECT],
    authMethod: 'none',
    responseTypes: ['code'],
  });
});

/** The client's request (its first redirect URI unless `over` names another), scope openid email, state st-1. */
const authorizeUrl = (over: Record<string, string | undefined>, client = rp): string =>
  authorizeRequestUrl(host.url, client, { scope: 'openid email', state: 'st-1', ...over });

const get = (url: string, headers: Record<string, string> = {}) =>
  fetch(url, { redirect: 'manual', headers: { 'accept-language': 'en-US', ...headers } });

/** The href of the page's language switch to `locale`, unescaped. */
function switchLink(page: string, locale: string): string {
  const href = new RegExp(`<a href="([^"]*)" hreflang="${locale}"`).exec(page)?.[1];
  if (href === undefined) throw new Error('no language switch');
  return href
    .replace(/&amp;/g, '&')
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"');
}

/** /authorize with `query` as the query string (GET) or the form body (POST). */
const send = (method: string, query: string) =>
  method === 'GET'
    ? get(`${host.url}/authorize?${query}`)
    : fetch(`${host.url}/authorize`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'accept-language': 'en-US' },
        body: query,
      });

describe('untrusted client or redirect URI: a page, never a redirect', () => {
  test.each([
    ['unknown client', { client_id: 'oidc_nobody' }, 'not registered here'],
    ['redirect URI not registered', { redirect_uri: 'https://evil.example/cb' }, 'has not registered'],
    ['redirect URI differing by a slash', { redirect_uri: `${REDIRECT}/` }, 'has not registered'],
    ['no redirect URI', { redirect_uri: undefined }, 'not valid'],
  ])('%s', async (_name, over, text) => {
    const res = await get(authorizeUrl(over));
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(await res.text()).toContain(text);
  });

  test.each(['GET', 'POST'])(
    '%s: a repeated client_id or redirect_uri is an error page, even with equal values',
    async (method) => {
      const base = new URL(authorizeUrl({})).search.slice(1);
      for (const extra of [`client_id=${rp.clientId}`, `redirect_uri=${encodeURIComponent(REDIRECT)}`]) {
        const res = await send(method, `${base}&${extra}`);
        expect([res.status, res.headers.get('location')]).toEqual([400, null]);
        expect(await res.text()).toContain('not valid');
      }
    },
  );

  test.each(['GET', 'POST'])(
    '%s: the language switch of the error page keeps the request and lands on the same page',
    async (method) => {
      const query = new URL(authorizeUrl({ client_id: 'oidc_nobody', state: 'a&b c' })).search.slice(1);
      const res = await send(method, query);
      expect(res.status).toBe(400);
      const href = switchLink(await res.text(), 'zh-CN');
      const to = new URL(href, host.url);
      expect(to.pathname).toBe('/authorize');
      expect(Object.fromEntries(to.searchParams)).toEqual({
        ...Object.fromEntries(new URLSearchParams(query)),
        lang: 'zh-CN',
      });
      const switched = await get(to.toString());
      expect(switched.status).toBe(400);
      expect(await switched.text()).toContain('未在此注册');
    },
  );

  test('the page speaks Chinese when asked', async () => {
    const res = await get(authorizeUrl({ client_id: 'oidc_nobody' }), { 'accept-language': 'zh-CN' });
    expect(await res.text()).toContain('未在此注册');
  });
});

describe('errors sent to the client', () => {
  function errorOf(res: Response, mode: 'query' | 'fragment') {
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get('location') ?? '');
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
    const params = new URLSearchParams(mode === 'query' ? location.search : location.hash.slice(1));
    expect(params.get('iss')).toBe(host.url);
    return Object.fromEntries(params);
  }

  test('missing nonce for id_token: invalid_request in the fragment with state', async () => {
    const res = await get(authorizeUrl({ response_type: 'id_token' }));
    expect(errorOf(res, 'fragment')).toMatchObject({ error: 'invalid_request', state: 'st-1' });
  });

  test('scope without openid: invalid_scope in the query', async () => {
    const res = await get(authorizeUrl({ scope: 'email' }));
    expect(errorOf(res, 'query')).toMatchObject({ error: 'invalid_scope', state: 'st-1' });
  });

  test('a public client without PKCE, and with plain PKCE', async () => {
    const none = await get(authorizeUrl({}, publicRp));
    expect(errorOf(none, 'query').error).toBe('invalid_request');
    const plain = await get(
      authorizeUrl({ code_challenge: CHALLENGE, code_challenge_method: 'plain' }, publicRp),
    );
    expect(errorOf(plain, 'query').error_description).toMatch(/S256/);
  });

  test('a response type the client did not register: unauthorized_client', async () => {
    const res = await get(authorizeUrl({ response_type: 'id_token', nonce: 'n' }, publicRp));
    expect(errorOf(res, 'fragment').error).toBe('unauthorized_client');
  });

  test('request objects are not supported; duplicates refused', async () => {
    const res = await get(authorizeUrl({ request: 'eyJhbGciOiJub25lIn0.e30.' }));
    expect(errorOf(res, 'query').error).toBe('request_not_supported');
    const dup = await get(`${authorizeUrl({})}&scope=openid`);
    expect(errorOf(dup, 'query').error).toBe('invalid_request');
  });

  test.each(['GET', 'POST'])(
    '%s: any other repeated parameter is invalid_request to the client, in the response mode, without state',
    async (method) => {
      for (const [over, extra, mode] of [
        [{}, 'state=again', 'query'],
        [{}, 'scope=openid', 'query'],
        [{ response_type: 'id_token', nonce: 'n' }, 'nonce=m', 'fragment'],
        [{ response_mode: 'fragment' }, 'prompt=login&prompt=none', 'fragment'],
      ] as const) {
        const res = await send(method, `${new URL(authorizeUrl(over)).search.slice(1)}&${extra}`);
        const answer = errorOf(res, mode);
        expect(answer.error).toBe('invalid_request');
        expect(answer.error_description).toMatch(/more than once/);
        expect('state' in answer).toBe(extra !== 'state=again');
      }
    },
  );

  test('form_post errors are an auto-submitting page under a nonce CSP', async () => {
    const res = await get(authorizeUrl({ scope: 'email', response_mode: 'form_post' }));
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    expect(csp).toContain(`form-action ${new URL(REDIRECT).origin}`);
    const page = await res.text();
    expect(page).toContain(`<form method="post" action="${REDIRECT}">`);
    expect(page).toContain('<input type="hidden" name="error" value="invalid_scope">');
    expect(page).toContain(`<script nonce="${nonce}">`);
  });
});

describe('hostile input', () => {
  test('a NUL in state: invalid_request, and the state is not echoed', async () => {
    const res = await get(`${authorizeUrl({ state: undefined })}&state=a%00b`);
    const location = new URL(res.headers.get('location') ?? '');
    expect(location.searchParams.get('error')).toBe('invalid_request');
    expect(location.searchParams.has('state')).toBe(false);
  });

  test('CR LF in state stays encoded in the Location header; nothing is injected', async () => {
    const res = await get(authorizeUrl({ state: 'a\r\nSet-Cookie: planted=1', scope: 'email' }));
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toContain('state=a%0D%0ASet-Cookie%3A+planted%3D1');
    expect(res.headers.get('set-cookie') ?? '').not.toContain('planted');
  });

  test.each([
    ['client_id of invalid UTF-8', 'client_id=%ff%fe'],
    ['client_id with a NUL', 'client_id=oidc_%00'],
    ['redirect_uri with CR LF', `client_id=CLIENT&redirect_uri=${encodeURIComponent(`${REDIRECT}\r\nX: 1`)}`],
    ['broken percent-encoding', 'client_id=%zz&redirect_uri=%'],
  ])('%s: an error page', async (_name, query) => {
    const res = await get(
      `${host.url}/authorize?${query.replace('CLIENT', rp.clientId)}&response_type=code&scope=openid`,
    );
    expect([res.status, res.headers.get('location')]).toEqual([400, null]);
  });

  test('a mistyped max_age is invalid_request to the client; an over-long client_id is the error page', async () => {
    const typed = await get(authorizeUrl({ max_age: 'soon' }));
    expect(new URL(typed.headers.get('location') ?? '').searchParams.get('error')).toBe('invalid_request');
    const long = await get(authorizeUrl({ client_id: 'c'.repeat(4097) }));
    expect([long.status, long.headers.get('location')]).toEqual([400, null]);
  });

  test('lang only picks the error page language: an unknown, repeated or over-long one is ignored', async () => {
    for (const lang of ['lang=fr', 'lang=zh-CN&lang=en-US', `lang=${'x'.repeat(5000)}`]) {
      const res = await get(`${authorizeUrl({})}&${lang}`);
      expect([res.status, res.headers.get('location')]).toEqual([
        303,
        expect.stringMatching(/^\/interaction\//),
      ]);
    }
    const page = await get(`${authorizeUrl({ client_id: 'oidc_nobody' })}&lang=zh-CN`);
    expect([page.status, await page.text()]).toEqual([400, expect.stringContaining('<html lang="zh-CN">')]);
  });

  test('the interaction page ignores an unknown, repeated or over-long lang: the page opens in the browser language', async () => {
    const parked = await get(authorizeUrl({}));
    const location = (parked.headers.get('location') ?? '').split('?')[0]!;
    for (const lang of ['fr', 'zh-CN&lang=en-US', 'x'.repeat(100)]) {
      const page = await get(`${host.url}${location}?lang=${lang}`);
      expect([lang, page.status, await page.text()]).toEqual([
        lang,
        200,
        expect.stringContaining('<html lang="en-US">'),
      ]);
      expect(page.headers.getSetCookie().some((c) => /lang=/.test(c.split(';')[0] ?? ''))).toBe(false);
    }
    // A locale we have is still honoured.
    const zh = await get(`${host.url}${location}?lang=zh-CN`);
    expect([zh.status, await zh.text()]).toEqual([200, expect.stringContaining('<html lang="zh-CN">')]);
  });

  test('a state far beyond the limit is refused, not echoed', async () => {
    const res = await get(authorizeUrl({ state: 's'.repeat(5000) }));
    const location = new URL(res.headers.get('location') ?? '');
    expect(location.searchParams.get('error')).toBe('invalid_request');
    expect(location.searchParams.has('state')).toBe(false);
  });
});

describe('a valid request', () => {
  test('is parked for the pages, and ui_locales picks the page language', async () => {
    const res = await get(authorizeUrl({ ui_locales: 'zh-Hans en' }));
    expect(res.status).toBe(303);
    const location = res.headers.get('location') ?? '';
    expect(location).toMatch(/^\/interaction\/[A-Za-z0-9_-]{43}\?lang=zh-CN$/);
    const page = await get(`${host.url}${location}`);
    expect(page.status).toBe(200);
    const text = await page.text();
    expect(text).toContain('lang="zh-CN"');
    // Its language switch leads back to the same interaction.
    expect(switchLink(text, 'en-US')).toBe(`${location.split('?')[0]}?lang=en-US`);
    expect(page.headers.get('set-cookie')).toMatch(/oidc_flow=/);
  });

  test('login_hint prefills the sign-up address when it is an email address', async () => {
    const page = async (hint: string) => {
      const res = await get(authorizeUrl({ login_hint: hint }));
      return (await get(`${host.url}${res.headers.get('location')}`)).text();
    };
    // The sign-up form's address input (whatever else it carries) and its value attribute, as written.
    const emailValue = (text: string) => {
      const input = text.match(/<input id="email"[^>]*>/)?.[0] ?? '';
      expect(input).toContain('name="email"');
      return input.match(/\svalue="([^"]*)"/)?.[1];
    };
    expect(emailValue(await page('Grace@Example.test'))).toBe('grace@example.test');
    expect(emailValue(await page('not an address'))).toBe('');
    // An address whose local part carries markup is still an address: prefilled, escaped, never markup.
    const marked = await page('Ada"><b>&\'x@example.test');
    expect(emailValue(marked)).toBe('ada&quot;&gt;&lt;b&gt;&amp;&#39;x@example.test');
    expect(marked).not.toContain('<b>');
  });

  test('prompt=none without a sign-in: login_required to the client, no page', async () => {
    const res = await get(authorizeUrl({ prompt: 'none' }));
    const page = await get(`${host.url}${res.headers.get('location')}`);
    expect(page.status).toBe(303);
    const location = new URL(page.headers.get('location') ?? '');
    expect(Object.fromEntries(location.searchParams)).toEqual({
      error: 'login_required',
      error_description: expect.any(String),
      state: 'st-1',
      iss: host.url,
    });
    // The request was answered: its page is gone.
    const again = await get(`${host.url}${res.headers.get('location')}`);
    expect(again.status).toBe(410);
  });

  test('an unknown interaction is a page', async () => {
    const res = await get(`${host.url}/interaction/${'A'.repeat(43)}`);
    expect(res.status).toBe(410);
  });
});

describe('oidc_authorize_total', () => {
  test('counts each outcome, read at the metrics endpoint', async () => {
    const metrics = createMetrics(uniqueName('oidc-metrics'));
    const server = serveMetrics(metrics, 0);
    await once(server, 'listening');
    host.deps.metrics = metrics;
    try {
      await get(authorizeUrl({ client_id: 'oidc_nobody' }));
      await get(authorizeUrl({ scope: 'email' }));
      await get(`${authorizeUrl({})}&state=again`);
      const parked = await get(authorizeUrl({ prompt: 'none' }));
      await get(`${host.url}${parked.headers.get('location')}`);
      await get(authorizeUrl({}));
      const port = (server.address() as AddressInfo).port;
      const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      const count = (outcome: string) =>
        Number(
          new RegExp(`^oidc_authorize_total\\{[^}]*outcome="${outcome}"[^}]*\\} (\\d+)$`, 'm').exec(
            text,
          )?.[1],
        );
      expect(count('error_page')).toBe(1);
      expect(count('invalid_scope')).toBe(1);
      expect(count('invalid_request')).toBe(1);
      expect(count('interaction')).toBe(2);
      expect(count('login_required')).toBe(1);
    } finally {
      host.deps.metrics = undefined;
      await new Promise((r) => server.close(r));
    }
  });
});
