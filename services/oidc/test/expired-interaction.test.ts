// An authorization request that expired while the person was away, on the real host over PostgreSQL and Redis,
// its clock moved past the expiry: the page offers "Return to {application}" (with the pages' headers), whose
// guarded post answers the client once with access_denied, state and iss in the request's response mode; a forged
// post is refused; a client deleted, revoked or without the redirect URI since is never redirected to; a day past
// the expiry nothing is left; two concurrent posts answer once. In Chromium: the page in both languages and the
// button taking the person back to the relying party.
import { PAGE_STEP_CEILING_MS, settableClock, uniqueName } from '@svc/testkit';
import type { Browser } from 'playwright-core';
import { launchChromium, shootBothLocales } from './chromium-kit';
import {
  authorizeRequestUrl,
  provisionRelyingParty,
  type RelyingPartyFixture,
  useOidcPages,
} from './pages-kit';
import { type RelyingPartyServer, startRelyingParty } from './rp-kit';

jest.setTimeout(120_000);

const clock = settableClock();
const host = useOidcPages({ clock });
const REDIRECT = `https://${uniqueName('rp')}.example/cb`;
const OTHER = `https://${uniqueName('rp')}.example/other`;
const DAY_MS = 24 * 3600 * 1000;
const EXPIRED_DESCRIPTION = 'The sign-in request expired.';

/** Moves the host's clock just past a request's lifetime (OIDC_INTERACTION_TTL_SECONDS). */
const expire = () => clock.advance(host.deps.pages.settings.interactionTtlSeconds * 1000);

/** The cookies a browser would keep for the host (names and values only; this host sets no Domain). */
class Jar {
  private readonly cookies = new Map<string, string>();
  take(res: Response): Response {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const i = (pair ?? '').indexOf('=');
      if (i > 0) this.cookies.set((pair as string).slice(0, i), (pair as string).slice(i + 1));
    }
    return res;
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

async function get(url: string, jar: Jar): Promise<Response> {
  const res = await fetch(url, {
    redirect: 'manual',
    headers: { cookie: jar.header(), 'accept-language': 'en-US' },
  });
  return jar.take(res);
}

/** /authorize for `rp` (state st-exp), then its interaction page once, as a browser would. */
async function parkAndOpen(rp: RelyingPartyFixture, over: Record<string, string | undefined> = {}) {
  const jar = new Jar();
  const parked = await get(authorizeRequestUrl(host.url, rp, { state: 'st-exp', ...over }), jar);
  expect(parked.status).toBe(303);
  const page = `${host.url}${parked.headers.get('location')}`;
  const live = await get(page, jar);
  expect(live.status).toBe(200);
  await live.text();
  return { page, jar, live };
}

/** The page after expiry: its status, text, and the button's CSRF value when it offers one. */
async function view(page: string, jar: Jar) {
  const res = await get(page, jar);
  const text = await res.text();
  const csrf =
    /<form method="post" action="[^"]*\/cancel"><input type="hidden" name="_csrf" value="([^"]+)">/.exec(
      text,
    )?.[1];
  return { res, text, csrf };
}

/** The button's post (the form as a browser sends it, from the host's origin unless `origin` says otherwise). */
function post(page: string, jar: Jar, body: Record<string, string>, origin: string | undefined = host.url) {
  return fetch(`${page.split('?')[0]}/cancel`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      cookie: jar.header(),
      'content-type': 'application/x-www-form-urlencoded',
      'accept-language': 'en-US',
      ...(origin ? { origin } : {}),
    },
    body: new URLSearchParams(body).toString(),
  });
}

const fixture = () =>
  provisionRelyingParty(host, {
    redirectUris: [REDIRECT, OTHER],
    names: { 'en-US': 'Tide Notes', 'zh-CN': '潮汐笔记' },
  });

function expectNoRedirect(res: Response) {
  expect(res.status).toBe(410);
  expect(res.headers.get('location')).toBeNull();
}

test('the expired page offers the way back with the pages’ headers; the post answers access_denied, state, iss', async () => {
  const rp = await fixture();
  const { page, jar, live } = await parkAndOpen(rp);
  expire();
  const expired = await view(page, jar);
  expect(expired.res.status).toBe(410);
  expect(expired.text).toContain('This sign-in request has expired');
  expect(expired.text).toContain('Return to Tide Notes');
  expect(expired.csrf).toBeDefined();
  for (const name of [
    'content-security-policy',
    'cache-control',
    'referrer-policy',
    'x-content-type-options',
  ])
    expect([name, expired.res.headers.get(name)]).toEqual([name, live.headers.get(name)]);
  expect(expired.res.headers.get('content-security-policy')).toContain(
    `form-action 'self' ${new URL(REDIRECT).origin}`,
  );
  const zh = await view(`${page}?lang=zh-CN`, jar);
  expect(zh.text).toContain('此登录请求已过期');
  expect(zh.text).toContain('返回“潮汐笔记”');

  const answered = await post(page, jar, { _csrf: expired.csrf as string });
  expect(answered.status).toBe(303);
  expect(answered.headers.get('cache-control')).toBe('no-store');
  const location = new URL(answered.headers.get('location') ?? '');
  expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
  expect(Object.fromEntries(location.searchParams)).toEqual({
    error: 'access_denied',
    error_description: EXPIRED_DESCRIPTION,
    state: 'st-exp',
    iss: host.url,
  });
  // Answered once: the page and a second post have nothing left to send.
  expectNoRedirect(await post(page, jar, { _csrf: expired.csrf as string }));
  const after = await view(page, jar);
  expect(after.res.status).toBe(410);
  expect(after.csrf).toBeUndefined();
});

test('the error goes back the way the request asked: fragment and form_post', async () => {
  const rp = await fixture();
  const fragment = await parkAndOpen(rp, { response_type: 'code id_token', nonce: 'n-1', state: 'st-f' });
  const formPost = await parkAndOpen(rp, { response_mode: 'form_post', state: 'st-p' });
  const withoutState = await parkAndOpen(rp, { state: undefined });
  expire();

  const f = await view(fragment.page, fragment.jar);
  const fa = await post(fragment.page, fragment.jar, { _csrf: f.csrf as string });
  expect(fa.status).toBe(303);
  const location = new URL(fa.headers.get('location') ?? '');
  expect(location.search).toBe('');
  expect(Object.fromEntries(new URLSearchParams(location.hash.slice(1)))).toEqual({
    error: 'access_denied',
    error_description: EXPIRED_DESCRIPTION,
    state: 'st-f',
    iss: host.url,
  });

  const p = await view(formPost.page, formPost.jar);
  const pa = await post(formPost.page, formPost.jar, { _csrf: p.csrf as string });
  expect(pa.status).toBe(200);
  const html = await pa.text();
  expect(html).toContain(`<form method="post" action="${REDIRECT}">`);
  expect(html).toContain('<input type="hidden" name="error" value="access_denied">');
  expect(html).toContain('<input type="hidden" name="state" value="st-p">');
  expect(html).toContain(`<input type="hidden" name="iss" value="${host.url}">`);

  const s = await view(withoutState.page, withoutState.jar);
  const sa = await post(withoutState.page, withoutState.jar, { _csrf: s.csrf as string });
  expect(Object.fromEntries(new URL(sa.headers.get('location') ?? '').searchParams)).toEqual({
    error: 'access_denied',
    error_description: EXPIRED_DESCRIPTION,
    iss: host.url,
  });
});

test('a forged post (no or another CSRF value, another Origin) is refused and leaves the way back open', async () => {
  const rp = await fixture();
  const { page, jar } = await parkAndOpen(rp);
  expire();
  const { csrf } = await view(page, jar);
  expect(csrf).toBeDefined();
  for (const forged of [
    post(page, jar, {}),
    post(page, jar, { _csrf: 'A'.repeat((csrf as string).length) }),
    post(page, jar, { _csrf: csrf as string }, 'https://attacker.example'),
    post(page, new Jar(), { _csrf: csrf as string }),
  ]) {
    const res = await forged;
    expect(res.status).toBe(403);
    expect(res.headers.get('location')).toBeNull();
  }
  const genuine = await post(page, jar, { _csrf: csrf as string });
  expect(genuine.status).toBe(303);
});

test('a client deleted, revoked or without the redirect URI since the request: no button, no redirect', async () => {
  const db = host.infra.db;
  const changes: [string, (rp: RelyingPartyFixture) => Promise<unknown>][] = [
    ['deleted', (rp) => db.oidcClient.delete({ where: { clientId: rp.clientId } })],
    [
      'revoked',
      (rp) => db.oidcClient.update({ where: { clientId: rp.clientId }, data: { status: 'REVOKED' } }),
    ],
    [
      'redirect URI removed',
      (rp) => db.oidcClient.update({ where: { clientId: rp.clientId }, data: { redirectUris: [OTHER] } }),
    ],
  ];
  const opened = await Promise.all(changes.map(async () => ({ rp: await fixture() })));
  const parked = await Promise.all(opened.map(({ rp }) => parkAndOpen(rp)));
  expire();
  // Each page offered the way back; the client changes before the person uses it.
  const csrfs = await Promise.all(parked.map(({ page, jar }) => view(page, jar).then((v) => v.csrf)));
  for (const c of csrfs) expect(c).toBeDefined();
  for (const [i, [, change]] of changes.entries()) await change(opened[i]?.rp as RelyingPartyFixture);
  // Past the client cache's lifetime (the host's clock), as every replica reads the change.
  clock.advance(2001);
  for (const [i, [why]] of changes.entries()) {
    const { page, jar } = parked[i] as (typeof parked)[number];
    const res = await post(page, jar, { _csrf: csrfs[i] as string });
    expect([why, res.status, res.headers.get('location')]).toEqual([why, 410, null]);
    const again = await view(page, jar);
    expect([why, again.res.status, again.csrf]).toEqual([why, 410, undefined]);
    expect(again.text).not.toContain('Return to');
  }
});

test('a day past the expiry nothing is left: 410 without the button, and no redirect', async () => {
  const rp = await fixture();
  const { page, jar } = await parkAndOpen(rp);
  expire();
  clock.advance(DAY_MS - 1);
  const last = await view(page, jar);
  expect(last.csrf).toBeDefined();
  clock.advance(1);
  const gone = await view(page, jar);
  expect(gone.res.status).toBe(410);
  expect(gone.csrf).toBeUndefined();
  expect(gone.text).toContain('This link has expired');
  expectNoRedirect(await post(page, jar, { _csrf: last.csrf as string }));
});

test('concurrent posts of the button answer the client once', async () => {
  const rp = await fixture();
  const { page, jar } = await parkAndOpen(rp);
  expire();
  const { csrf } = await view(page, jar);
  const answers = await Promise.all(
    Array.from({ length: 6 }, () => post(page, jar, { _csrf: csrf as string })),
  );
  const redirects = answers.filter((r) => r.status === 303);
  expect(redirects).toHaveLength(1);
  expect(new URL(redirects[0]?.headers.get('location') ?? '').searchParams.get('error')).toBe(
    'access_denied',
  );
  for (const r of answers.filter((a) => a.status !== 303)) expectNoRedirect(r);
});

test('a request still waiting is not answered as expired: its cancel is the person declining', async () => {
  const rp = await fixture();
  const { page, jar } = await parkAndOpen(rp);
  // The live page's own CSRF value (the sign-in page carries it in its forms).
  const live = await view(page, jar);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(live.text)?.[1];
  expect(live.res.status).toBe(200);
  const res = await post(page, jar, { _csrf: csrf as string });
  expect(Object.fromEntries(new URL(res.headers.get('location') ?? '').searchParams)).toMatchObject({
    error: 'access_denied',
    error_description: 'The person declined the request.',
  });
  // Declined requests leave nothing to answer once their time is up.
  expire();
  expect((await view(page, jar)).csrf).toBeUndefined();
});

describe('in Chromium', () => {
  let browser: Browser;
  let rpServer: RelyingPartyServer;

  beforeAll(async () => {
    rpServer = await startRelyingParty('localhost');
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await rpServer?.close();
  });

  test('the expired page in both languages, and its button back to the relying party', async () => {
    const rp = await provisionRelyingParty(host, {
      redirectUris: [`${rpServer.origin}/cb`],
      names: { 'en-US': 'Tide Notes', 'zh-CN': '潮汐笔记' },
    });
    const context = await browser.newContext({ locale: 'en-US' });
    context.setDefaultTimeout(PAGE_STEP_CEILING_MS);
    const page = await context.newPage();
    const first = await page.goto(authorizeRequestUrl(host.url, rp, { state: 'st-chromium' }));
    expect(first?.status()).toBe(200);
    expire();
    const expired = await page.reload();
    expect(expired?.status()).toBe(410);
    const button = page.getByRole('button', { name: 'Return to Tide Notes' });
    await button.waitFor();
    await shootBothLocales(page, '05-expired-return');
    await page.getByRole('button', { name: 'Return to Tide Notes' }).click();
    const received = await rpServer.next('/cb');
    expect(Object.fromEntries(new URL(received.url).searchParams)).toEqual({
      error: 'access_denied',
      error_description: EXPIRED_DESCRIPTION,
      state: 'st-chromium',
      iss: host.url,
    });
    await context.close();
  });
});
