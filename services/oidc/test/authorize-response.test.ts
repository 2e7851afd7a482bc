// The authorization response encoder: query keeps the redirect URI's own query, fragment replaces nothing it
// should not, form_post is an auto-submitting page under a CSP admitting only its nonce'd script; all name iss.
import { encodeAuthorizationResponse, errorParams } from '../src/routes/authorize-response';

const ISS = 'https://oidc.example';

test('query: parameters appended, the URI keeps its own query, state and iss added', () => {
  const answer = encodeAuthorizationResponse(
    { redirectUri: 'https://rp.example/cb?tenant=a b', responseMode: 'query', state: 's&t=1' },
    { code: 'c1', unused: undefined },
    { issuer: ISS },
  );
  expect(answer.kind).toBe('redirect');
  if (answer.kind !== 'redirect') return;
  expect(answer.status).toBe(303);
  expect(answer.location.startsWith('https://rp.example/cb?tenant=a b&')).toBe(true);
  const url = new URL(answer.location);
  expect(url.searchParams.get('tenant')).toBe('a b');
  expect(url.searchParams.get('code')).toBe('c1');
  expect(url.searchParams.get('state')).toBe('s&t=1');
  expect(url.searchParams.get('iss')).toBe(ISS);
  expect(url.searchParams.has('unused')).toBe(false);
  expect(answer.headers).toMatchObject({ 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' });
});

test('query: a URI without a query gets one; no state means no state member', () => {
  const answer = encodeAuthorizationResponse(
    { redirectUri: 'http://127.0.0.1:9/cb', responseMode: 'query' },
    errorParams({ error: 'login_required', description: 'Sign-in is required.' }),
    { issuer: ISS },
  );
  if (answer.kind !== 'redirect') throw new Error('expected redirect');
  const url = new URL(answer.location);
  expect([...url.searchParams.keys()]).toEqual(['error', 'error_description', 'iss']);
  expect(url.searchParams.get('error_description')).toBe('Sign-in is required.');
});

test('fragment: parameters in the fragment, the query untouched', () => {
  const answer = encodeAuthorizationResponse(
    { redirectUri: 'https://rp.example/cb?x=1', responseMode: 'fragment', state: 'st' },
    { id_token: 'a.b.c', access_token: 'd.e.f', token_type: 'Bearer', expires_in: '3600' },
    { issuer: ISS },
  );
  if (answer.kind !== 'redirect') throw new Error('expected redirect');
  const url = new URL(answer.location);
  expect(url.search).toBe('?x=1');
  const fragment = new URLSearchParams(url.hash.slice(1));
  expect(Object.fromEntries(fragment)).toEqual({
    id_token: 'a.b.c',
    access_token: 'd.e.f',
    token_type: 'Bearer',
    expires_in: '3600',
    state: 'st',
    iss: ISS,
  });
});

test('form_post: hidden inputs escaped, nonce on the script, strict CSP', () => {
  const answer = encodeAuthorizationResponse(
    {
      redirectUri: 'https://rp.example/cb?a=1&b=2',
      responseMode: 'form_post',
      state: '"><script>x</script>',
    },
    { code: 'c&1' },
    { issuer: ISS, cspNonce: 'bm9uY2U' },
  );
  if (answer.kind !== 'form_post') throw new Error('expected form_post');
  expect(answer.status).toBe(200);
  expect(answer.html).toContain('<form method="post" action="https://rp.example/cb?a=1&amp;b=2">');
  expect(answer.html).toContain('<input type="hidden" name="code" value="c&amp;1">');
  expect(answer.html).toContain('value="&quot;&gt;&lt;script&gt;x&lt;/script&gt;"');
  expect(answer.html).toContain(`<input type="hidden" name="iss" value="${ISS}">`);
  expect(answer.html).toContain('<script nonce="bm9uY2U">document.forms[0].submit();</script>');
  expect(answer.html.match(/<script/g)).toHaveLength(1);
  expect(answer.headers['Content-Security-Policy']).toBe(
    "default-src 'none'; script-src 'nonce-bm9uY2U'; form-action https://rp.example; base-uri 'none'; frame-ancestors 'none'",
  );
  expect(answer.headers).toMatchObject({
    'Cache-Control': 'no-store',
    'Content-Type': 'text/html; charset=utf-8',
  });
});

test('form_post: a fresh nonce per page; a private-use scheme is admitted by its scheme', () => {
  const target = { redirectUri: 'com.example.app:/cb', responseMode: 'form_post' as const };
  const a = encodeAuthorizationResponse(target, { code: 'x' }, { issuer: ISS });
  const b = encodeAuthorizationResponse(target, { code: 'x' }, { issuer: ISS });
  const nonceOf = (csp: string | undefined) => /'nonce-([^']+)'/.exec(csp ?? '')?.[1];
  expect(nonceOf(a.headers['Content-Security-Policy'])).toMatch(/^[A-Za-z0-9_-]{22}$/);
  expect(nonceOf(a.headers['Content-Security-Policy'])).not.toBe(
    nonceOf(b.headers['Content-Security-Policy']),
  );
  expect(a.headers['Content-Security-Policy']).toContain('form-action com.example.app:;');
});

test('a fragment in the redirect URI is dropped, never combined', () => {
  const answer = encodeAuthorizationResponse(
    { redirectUri: 'https://rp.example/cb#old', responseMode: 'fragment' },
    { id_token: 't' },
    { issuer: ISS },
  );
  if (answer.kind !== 'redirect') throw new Error('expected redirect');
  expect(answer.location).toBe(`https://rp.example/cb#id_token=t&iss=${encodeURIComponent(ISS)}`);
});
