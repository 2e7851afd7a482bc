// The OIDC host's sign-in session over HTTP (a sign-in recorded server-side, its cookie presented as a browser
// would): it answers a client with no page; prompt=none succeeds with it and fails without it; prompt=login and an
// exceeded max_age show the sign-in page, whose forged passkey calls are refused before their malformed bodies; a
// disabled account or an ended sign-in is login_required; two tabs finishing one request answer the client once;
// the code names the sign-in for end-session.
import { createAccountsStore } from '@svc/issuance/stores';
import { grantClaim, setAccountStatus } from '@svc/provisioning';
import { expectForgedCallsRefusedFirst, makeAgent, provisionAccount, uniqueName } from '@svc/testkit';
import { hashCode, issueAuthorizationResponse } from '../src/domain/authorization';
import {
  authorizeRequestUrl,
  provisionRelyingParty,
  type RelyingPartyFixture,
  startOidcPages,
  useOidcPages,
} from './pages-kit';

const host = useOidcPages();
let rp: RelyingPartyFixture;
const REDIRECT = `https://${uniqueName('rp')}.example/cb`;

beforeAll(async () => {
  rp = await provisionRelyingParty(host, { redirectUris: [REDIRECT], claims: { email: 'OPTIONAL' } });
});

/** A person with the terms accepted and the email claim decided, signed in on the host `ageSeconds` ago. */
async function signedIn(ageSeconds = 0) {
  const account = await provisionAccount(host.infra);
  await grantClaim(host.infra.provisioning, account.id, rp.anchor, 'email', 'GRANTED');
  const authTime = Math.floor(Date.now() / 1000) - ageSeconds;
  const started = await host.deps.ports.signInSessions.start(undefined, {
    accountId: account.id,
    authority: (await createAccountsStore(host.infra.db).currentAuthority(account.id))!,
    authTime,
    amr: ['hwk', 'user'],
    acr: 'phr',
  });
  return {
    account,
    authTime,
    cookie: `oidc_session=${started.id}`,
    id: started.id,
    handle: started.session.handle,
  };
}

const get = (url: string, cookie?: string) =>
  fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} });

/** The fixture client's code request to /authorize (state st-9), with `over` added or replaced. */
const authorizeUrl = (over: Record<string, string> = {}) =>
  authorizeRequestUrl(host.url, rp, { state: 'st-9', ...over });

/** /authorize, then the interaction page it parks the request at, with the browser's cookie. */
async function authorize(over: Record<string, string>, cookie?: string) {
  const parked = await get(authorizeUrl(over), cookie);
  expect(parked.status).toBe(303);
  const page = `${host.url}${parked.headers.get('location')}`;
  return { page, res: await get(page, cookie) };
}

function clientAnswer(res: Response): Record<string, string> {
  expect(res.status).toBe(303);
  const location = new URL(res.headers.get('location') ?? '');
  expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
  return Object.fromEntries(location.searchParams);
}

test('a held sign-in answers the client with no page, prompt=none included; the code names the sign-in', async () => {
  const s = await signedIn();
  for (const extra of [{}, { prompt: 'none' }, { max_age: '3600' }] as Record<string, string>[]) {
    const { res } = await authorize(extra, s.cookie);
    const answer = clientAnswer(res);
    expect(answer).toMatchObject({ code: expect.any(String), state: 'st-9', iss: host.url });
    const row = await host.infra.db.oidcAuthorizationCode.findUniqueOrThrow({
      where: { codeHash: hashCode(answer.code as string) },
    });
    expect(row).toMatchObject({ accountId: s.account.id, browserSessionId: s.handle, redirectUri: REDIRECT });
    expect(Math.floor(row.authTime.getTime() / 1000)).toBe(s.authTime);
    // Reusing the sign-in sets no new cookie.
    expect(res.headers.get('set-cookie') ?? '').not.toContain('oidc_session=');
  }
});

/** The name=value pairs a response sets, as a Cookie header value. */
const setCookies = (res: Response) =>
  res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');

/** Exchanges a code at /token as the fixture's (client_secret_basic) client. */
async function exchangeCode(code: string): Promise<Record<string, unknown>> {
  const basic = Buffer.from(`${rp.clientId}:${rp.clientSecret}`).toString('base64');
  const res = await fetch(`${host.url}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${basic}` },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT }),
  });
  return (await res.json()) as Record<string, unknown>;
}

test('offline_access: a refresh token only after prompt=consent, whose review asks for it (OIDC Core 11)', async () => {
  const s = await signedIn();
  // Without prompt=consent the held sign-in answers at once, as if offline_access had not been asked for.
  const quiet = clientAnswer((await authorize({ scope: 'openid offline_access' }, s.cookie)).res);
  const plain = await exchangeCode(quiet.code as string);
  expect(plain).toMatchObject({ scope: 'openid', access_token: expect.any(String) });
  expect(plain).not.toHaveProperty('refresh_token');
  // With it: the review names offline access; saving it answers with a code that brings a refresh token.
  const { page, res } = await authorize({ scope: 'openid offline_access', prompt: 'consent' }, s.cookie);
  expect(res.status).toBe(200);
  const review = await res.text();
  expect(review).toContain('also asks to keep you signed in while you are away (offline access)');
  const cookie = `${s.cookie}; ${setCookies(res)}`;
  const saved = await fetch(`${page.split('?')[0]}/review`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', origin: host.url },
    body: new URLSearchParams({
      _csrf: /name="_csrf" value="([^"]+)"/.exec(review)?.[1] ?? '',
      consent_email: 'GRANTED',
    }),
  });
  expect(saved.status).toBe(303);
  const granted = clientAnswer(await get(page, cookie));
  expect(await exchangeCode(granted.code as string)).toMatchObject({
    scope: 'openid offline_access',
    refresh_token: expect.any(String),
  });
  // An application that asks about no claim: prompt=consent has nothing to review, unless offline access is asked.
  const bare = await provisionRelyingParty(host, { redirectUris: [REDIRECT] });
  expect(
    clientAnswer((await authorize({ client_id: bare.clientId, prompt: 'consent' }, s.cookie)).res).code,
  ).toBeTruthy();
  const offline = await authorize(
    { client_id: bare.clientId, prompt: 'consent', scope: 'openid offline_access' },
    s.cookie,
  );
  expect(offline.res.status).toBe(200);
  expect(await offline.res.text()).toContain('(offline access)');
});

test('prompt=login, select_account and an exceeded max_age show the sign-in page', async () => {
  const s = await signedIn(120);
  for (const extra of [
    { prompt: 'login' },
    { prompt: 'select_account' },
    { max_age: '60' },
    { max_age: '0' },
  ] as Record<string, string>[]) {
    const { res } = await authorize(extra, s.cookie);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('Sign in with a passkey');
  }
});

test('a forged passkey call of the sign-in page (no or a wrong CSRF token, a foreign Origin) is 403 before its malformed body is 400', async () => {
  const a = makeAgent(host.url);
  const parked = await a.request(authorizeUrl());
  expect(parked.res.status).toBe(303);
  const interaction = new URL(parked.res.headers.get('location') ?? '', host.url).pathname;
  expect((await a.request(interaction)).text).toContain('Sign in with a passkey');
  await expectForgedCallsRefusedFirst(a, interaction, [
    'authentication-options',
    'authentication',
    'registration-options',
    'registration',
  ]);
});

test('prompt=none: max_age exceeded, a disabled account, an ended sign-in are login_required', async () => {
  const old = await signedIn(120);
  expect(clientAnswer((await authorize({ prompt: 'none', max_age: '60' }, old.cookie)).res).error).toBe(
    'login_required',
  );
  const disabled = await signedIn();
  await setAccountStatus(host.infra.provisioning, disabled.account.id, 'DISABLED');
  expect(clientAnswer((await authorize({ prompt: 'none' }, disabled.cookie)).res).error).toBe(
    'login_required',
  );
  const ended = await signedIn();
  await host.deps.ports.signInSessions.end(ended.id);
  expect(clientAnswer((await authorize({ prompt: 'none' }, ended.cookie)).res).error).toBe('login_required');
  // A cookie value the host never issued is no sign-in.
  const forged = `oidc_session=${'A'.repeat(43)}`;
  expect(clientAnswer((await authorize({ prompt: 'none' }, forged)).res).error).toBe('login_required');
});

test('prompt=none with terms owed: interaction_required', async () => {
  const account = await provisionAccount(host.infra, { acceptTerms: false });
  const started = await host.deps.ports.signInSessions.start(undefined, {
    accountId: account.id,
    authority: (await createAccountsStore(host.infra.db).currentAuthority(account.id))!,
    authTime: Math.floor(Date.now() / 1000),
    amr: ['hwk', 'user'],
  });
  const { res } = await authorize({ prompt: 'none' }, `oidc_session=${started.id}`);
  expect(clientAnswer(res).error).toBe('interaction_required');
});

/**
 * The tabs that lose a race to finish one request never answer the client: each sees the request completed (410)
 * or, when it loaded after the winner claimed the held sign-in but before the winner finished, the sign-in page
 * (200), whose steps then find the request taken. Which of the two a loser sees is timing, so both are allowed.
 */
function expectOthersNeverAnswerTheClient(answers: Response[], losers: number): void {
  const others = answers.filter((r) => r.status !== 303);
  expect(others).toHaveLength(losers);
  for (const r of others) expect([200, 410]).toContain(r.status);
}

test('two tabs finishing one request: the client is answered once', async () => {
  const s = await signedIn();
  const parked = await get(authorizeUrl({ state: 'st-race' }), s.cookie);
  const page = `${host.url}${parked.headers.get('location')}`;
  const answers = await Promise.all(Array.from({ length: 6 }, () => get(page, s.cookie)));
  const toClient = answers.filter((r) => r.status === 303);
  expect(toClient).toHaveLength(1);
  expect(clientAnswer(toClient[0] as Response).code).toBeTruthy();
  expectOthersNeverAnswerTheClient(answers, 5);
  // Once finished, the request is completed for every tab.
  expect((await get(page, s.cookie)).status).toBe(410);
});

test('id_token_hint: the held sign-in answers prompt=none only when the hint names the same person', async () => {
  const client = await host.deps.ports.clients.get(rp.clientId);
  if (!client) throw new Error('client missing');
  /** An ID token this host issued to the client for an account (what an RP keeps and sends back as a hint). */
  const idTokenFor = async (accountId: string) =>
    (
      await issueAuthorizationResponse(
        host.deps,
        {
          client,
          accountId,
          redirectUri: REDIRECT,
          scope: 'openid',
          nonce: 'n',
          authTime: new Date(),
          amr: ['hwk', 'user'],
        },
        'id_token',
      )
    ).id_token as string;
  const a = await signedIn();
  const b = await signedIn();
  const same = await authorize({ prompt: 'none', id_token_hint: await idTokenFor(a.account.id) }, a.cookie);
  expect(clientAnswer(same.res).code).toBeTruthy();
  const other = await authorize({ prompt: 'none', id_token_hint: await idTokenFor(b.account.id) }, a.cookie);
  expect(clientAnswer(other.res).error).toBe('login_required');
  const garbage = await authorize(
    { prompt: 'none', id_token_hint: 'eyJhbGciOiJSUzI1NiJ9.e30.AAAA' },
    a.cookie,
  );
  expect(clientAnswer(garbage.res).error).toBe('login_required');
  // Without prompt=none a hint for someone else asks for the passkey.
  const page = await authorize({ id_token_hint: await idTokenFor(b.account.id) }, a.cookie);
  expect(page.res.status).toBe(200);
  expect(await page.res.text()).toContain('Sign in with a passkey');
});

test('two replicas: a request parked on one is finished on the other, and racing replicas answer once', async () => {
  const replica = await startOidcPages({ issuer: host.url });
  try {
    const s = await signedIn();
    const parked = await get(authorizeUrl({ state: 'st-replica' }), s.cookie);
    const path = parked.headers.get('location');
    const answers = await Promise.all(
      [host.address, replica.address, host.address, replica.address].map((base) =>
        get(`${base}${path}`, s.cookie),
      ),
    );
    const toClient = answers.filter((r) => r.status === 303);
    expect(toClient).toHaveLength(1);
    expectOthersNeverAnswerTheClient(answers, 3);
    expect(clientAnswer(toClient[0] as Response)).toMatchObject({ state: 'st-replica', iss: host.url });
  } finally {
    await replica.close();
  }
});
