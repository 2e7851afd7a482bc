// The /authorize limit per client address (OIDC_AUTHORIZE_RATE_PER_MINUTE) on the real host over Redis: under it
// a request is parked; over it GET and POST get the 429 error page with Retry-After in either locale, never a
// redirect, and nothing is parked; two replicas share one count; another address, or the window's end, is admitted
// again; a forged X-Forwarded-For (TRUST_PROXY unset) is no new address. The interaction pages: a flow started by
// a view without one counts on its own counter at the same rate, so one parked request is no amplifier. Each host
// keeps its Redis state under a prefix of its own (OIDC_REDIS_PREFIX): the other test files' hosts write to the same
// Redis db at the same time, so only this file's keys are counted.
import { type AddressedAnswer, requestFrom, uniqueName, waitUntil } from '@svc/testkit';
import {
  type OidcPagesHost,
  provisionRelyingParty,
  type RelyingPartyFixture,
  startOidcPages,
} from './pages-kit';

const REDIRECT = `https://${uniqueName('rp')}.example/cb`;

type Answer = AddressedAnswer;

/** /authorize by GET (query) or POST (form) from `from` (see requestFrom). */
function authorize(
  host: OidcPagesHost,
  rp: RelyingPartyFixture,
  opts: { method?: 'GET' | 'POST'; from?: string; headers?: Record<string, string>; state?: string } = {},
): Promise<Answer> {
  const query = new URLSearchParams({
    client_id: rp.clientId,
    redirect_uri: rp.redirectUri,
    response_type: 'code',
    scope: 'openid',
    // A large state: what a flood would send to grow the return records.
    state: opts.state ?? 's'.repeat(4096),
  }).toString();
  const post = opts.method === 'POST';
  return requestFrom(host.address, {
    method: opts.method,
    from: opts.from,
    path: post ? '/authorize' : `/authorize?${query}`,
    headers: { ...(post ? { 'content-type': 'application/x-www-form-urlencoded' } : {}), ...opts.headers },
    body: post ? query : undefined,
  });
}

/** GET of a same-host path from 127.0.0.1, with `cookie` when given. */
const view = (host: OidcPagesHost, path: string, cookie?: string): Promise<Answer> =>
  requestFrom(host.address, { path, headers: cookie ? { cookie } : {} });

/** The keys under the host's own prefix (OIDC_REDIS_PREFIX, unique to each host or pair of replicas here). */
const keysOf = (host: OidcPagesHost, kind: string) =>
  host.deps.redis.keys(`${host.deps.oidc.redisPrefix}:${kind}:*`);

const flowKeys = async (host: OidcPagesHost) => (await keysOf(host, 'flow')).length;

/** The parked requests and return records of the host in Redis (each parked request writes one of each). */
async function parkedKeys(host: OidcPagesHost): Promise<number> {
  const [live, back] = await Promise.all([keysOf(host, 'interaction'), keysOf(host, 'interaction-return')]);
  return live.length + back.length;
}

/** Variables of a host (or two replicas sharing them) admitting `points` /authorize requests per address. */
const envWith = (points: number) => ({
  OIDC_AUTHORIZE_RATE_PER_MINUTE: String(points),
  RATE_LIMIT_NAMESPACE: uniqueName('rl'),
  OIDC_REDIS_PREFIX: uniqueName('oidc'),
});

/** A host admitting `points` /authorize requests per address, its counters and Redis state its own. */
async function hostWith(points: number, more: { authorizeWindowSeconds?: number } = {}) {
  return startOidcPages({ env: envWith(points), ...more });
}

function expectLimited(a: Answer): void {
  expect(a.status).toBe(429);
  expect(a.headers.location).toBeUndefined();
  expect(Number(a.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  expect(Number(a.headers['retry-after'])).toBeLessThanOrEqual(60);
  expect(a.headers['content-type']).toMatch(/^text\/html/);
  expect(a.headers['cache-control']).toBe('no-store');
  expect(a.headers['content-security-policy']).toContain("default-src 'none'");
}

describe('one replica', () => {
  let host: OidcPagesHost;
  let rp: RelyingPartyFixture;
  beforeAll(async () => {
    host = await hostWith(3);
    rp = await provisionRelyingParty(host, { redirectUris: [REDIRECT] });
  });
  afterAll(() => host.close());

  test('under the limit parked; over it GET and POST are the 429 page with Retry-After and park nothing', async () => {
    const before = await parkedKeys(host);
    for (const method of ['GET', 'POST', 'GET'] as const) {
      const a = await authorize(host, rp, { method });
      expect(a.status).toBe(303);
      expect(a.headers.location).toMatch(/^\/interaction\//);
    }
    expect(await parkedKeys(host)).toBe(before + 6);

    const over = [
      await authorize(host, rp, { method: 'GET' }),
      await authorize(host, rp, { method: 'POST' }),
      // A forged X-Forwarded-For (TRUST_PROXY unset) is not another client address.
      await authorize(host, rp, {
        headers: { 'x-forwarded-for': '203.0.113.9', forwarded: 'for=198.51.100.9' },
      }),
      // An unknown client too: counted before the client is looked up.
      await authorize(host, { ...rp, clientId: 'oidc_nobody' }),
    ];
    for (const a of over) {
      expectLimited(a);
      expect(a.body).toContain('Too many attempts');
      // Nothing of the request's trust decision nor of the limit's machinery: no client, no redirect, no store.
      expect(a.body).not.toContain(REDIRECT);
      expect(a.body).not.toMatch(/redis|rate-limiter|authorize-ip|127\.0\.0\.1/i);
    }
    expect(await parkedKeys(host)).toBe(before + 6);

    const zh = await authorize(host, rp, { headers: { 'accept-language': 'zh-CN' } });
    expectLimited(zh);
    expect(zh.body).toContain('尝试次数过多');
    expect(zh.body).toContain('lang="zh-CN"');
  });

  test('another client address is unaffected', async () => {
    const before = await parkedKeys(host);
    expectLimited(await authorize(host, rp));
    const other = await authorize(host, rp, { from: '127.0.0.2' });
    expect(other.status).toBe(303);
    expect(await parkedKeys(host)).toBe(before + 2);
  });
});

test('two replicas at once share one count: exactly the limit is parked', async () => {
  const env = envWith(5);
  const r1 = await startOidcPages({ env });
  const r2 = await startOidcPages({ env, issuer: r1.url });
  try {
    const rp = await provisionRelyingParty(r1, { redirectUris: [REDIRECT] });
    const before = await parkedKeys(r1);
    const answers = await Promise.all(
      Array.from({ length: 14 }, (_, i) =>
        authorize(i % 2 ? r2 : r1, rp, { method: i % 4 < 2 ? 'GET' : 'POST' }),
      ),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([...Array(5).fill(303), ...Array(9).fill(429)]);
    expect(await parkedKeys(r1)).toBe(before + 10);
  } finally {
    await r2.close();
    await r1.close();
  }
});

test("the limit's window passes: the address is admitted again", async () => {
  const host = await hostWith(2, { authorizeWindowSeconds: 2 });
  try {
    const rp = await provisionRelyingParty(host, { redirectUris: [REDIRECT] });
    // Three at once, well within the 2 s window the first opens: two admitted, one refused until it ends.
    const first = await Promise.all([authorize(host, rp), authorize(host, rp), authorize(host, rp)]);
    expect(first.map((a) => a.status).sort()).toEqual([303, 303, 429]);
    const over = first.find((a) => a.status === 429) as Answer;
    expectLimited(over);
    expect(Number(over.headers['retry-after'])).toBeLessThanOrEqual(2);
    await waitUntil(async () => (await authorize(host, rp)).status === 303, 10_000);
  } finally {
    await host.close();
  }
});

test('interaction pages: views without a flow are limited at the same rate, with one nothing more is counted', async () => {
  const host = await hostWith(3);
  try {
    const rp = await provisionRelyingParty(host, { redirectUris: [REDIRECT] });
    const parked = await authorize(host, rp);
    const page = parked.headers.location as string;
    const before = await flowKeys(host);
    const fresh = [await view(host, page), await view(host, page), await view(host, page)];
    expect(fresh.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(await flowKeys(host)).toBe(before + 3);
    // A fourth browser without a flow (or with one this host never issued) starts none.
    for (const cookie of [undefined, 'oidc_flow=forged']) {
      const over = await view(host, page, cookie);
      expectLimited(over);
      expect(over.body).toContain('Too many attempts');
    }
    expect(await flowKeys(host)).toBe(before + 3);
    // A browser holding its flow goes on; an unknown request is the 410 page, counted nowhere and writing nothing.
    const cookie = String(fresh[0]?.headers['set-cookie']?.[0]).split(';')[0] as string;
    // The cookie keeps its name whatever the Redis prefix.
    expect(cookie).toMatch(/^oidc_flow=/);
    expect((await view(host, page, cookie)).status).toBe(200);
    expect((await view(host, `/interaction/${'A'.repeat(43)}`)).status).toBe(410);
    expect(await flowKeys(host)).toBe(before + 3);
    // The /authorize count is its own (one of its 3 spent).
    expect((await authorize(host, rp)).status).toBe(303);
  } finally {
    await host.close();
  }
});
