// The new-flow limit per client address (CONNECT_NEW_FLOW_RATE_PER_MINUTE) on the real host over Redis: views of an
// inquiry page, or of /account, by a browser without a flow (or account session) start one until the limit; past
// it a 429 "too many attempts" page with Retry-After and nothing written to Redis. A browser holding its flow or
// session goes on, another client address is admitted, and a forged X-Forwarded-For (TRUST_PROXY unset) is no
// new address. Behind a trusted proxy an IPv6 client counts by its /64, an IPv4 (or IPv4-mapped) one by its address.
// Each host keeps its Redis state under a prefix of its own (CONNECT_REDIS_PREFIX): the other test files' hosts
// write flows to the same Redis db at the same time, so only this file's keys are counted.
import {
  type AddressedAnswer,
  expectLimitedPage,
  provisionBackend,
  requestFrom,
  uniqueName,
} from '@svc/testkit';
import { type ConnectHost, startConnect, useConnectHost } from './helpers';

const cx = useConnectHost({
  config: { newFlowRate: { points: 3, windowSeconds: 60 }, redisPrefix: uniqueName('connect') },
});

type Answer = AddressedAnswer;

/** GET of a path from `from` (127.0.0.2 is another client address of the host listening on 127.0.0.1). */
function view(
  host: ConnectHost,
  path: string,
  opts: { cookie?: string; from?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const cookie: Record<string, string> = opts.cookie ? { cookie: opts.cookie } : {};
  return requestFrom(host.url, { path, from: opts.from, headers: { ...cookie, ...opts.headers } });
}

/** The host's flows and account page sessions in Redis: what a view without one writes. */
async function written(host: ConnectHost): Promise<number> {
  const prefix = host.deps.config.redisPrefix;
  const [flows, sessions] = await Promise.all([
    host.deps.redis.keys(`${prefix}:flow:session:*`),
    host.deps.redis.keys(`${prefix}:account:session:*`),
  ]);
  return flows.length + sessions.length;
}

const cookieOf = (a: Answer) => String(a.headers['set-cookie']?.[0]).split(';')[0] as string;

test('inquiry and account pages: views without a flow or session over the limit are the 429 page and write nothing', async () => {
  const host = cx.host;
  const backend = await provisionBackend(cx.infra, host.url);
  const est = await backend.establish({});
  const inquiry = `/inquiries/${est.body.exposureKey}`;
  const before = await written(host);
  // One count for both kinds: two inquiry flows and one account session.
  const fresh = [await view(host, inquiry), await view(host, inquiry), await view(host, '/account')];
  expect(fresh.map((a) => a.status)).toEqual([200, 200, 200]);
  expect(await written(host)).toBe(before + 3);
  // The cookies keep their names whatever the Redis prefix.
  expect([cookieOf(fresh[0] as Answer), cookieOf(fresh[2] as Answer)]).toEqual([
    expect.stringMatching(/^connect_flow=/),
    expect.stringMatching(/^connect_account=/),
  ]);
  // Past it: no cookie, a cookie the host never issued, a forged client address: nothing written.
  for (const path of [inquiry, '/account']) {
    expectLimitedPage(await view(host, path));
    expectLimitedPage(await view(host, path, { cookie: 'connect_flow=forged; connect_account=forged' }));
    expectLimitedPage(await view(host, path, { headers: { 'x-forwarded-for': '203.0.113.9' } }));
  }
  expect(await written(host)).toBe(before + 3);
  // Browsers holding their flow or session go on, counted nowhere.
  expect((await view(host, inquiry, { cookie: cookieOf(fresh[0] as Answer) })).status).toBe(200);
  expect((await view(host, '/account', { cookie: cookieOf(fresh[2] as Answer) })).status).toBe(200);
  expect(await written(host)).toBe(before + 3);
  // Another client address has a count of its own.
  const other = await view(host, '/account', { from: '127.0.0.2' });
  expect(other.status).toBe(200);
  expect(await written(host)).toBe(before + 4);
});

test('a post without a flow is refused before it writes a flow or spends the address count', async () => {
  const host = cx.host;
  const backend = await provisionBackend(cx.infra, host.url);
  const est = await backend.establish({});
  const inquiry = `/inquiries/${est.body.exposureKey}`;
  const from = '127.0.0.3';
  const before = await written(host);
  // More posts than the limit allows views: each is the 403 page, none writes a flow or counts.
  for (let i = 0; i < 5; i++) {
    const a = await requestFrom(host.url, {
      method: 'POST',
      path: `${inquiry}/email`,
      from,
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: host.url },
      body: `_csrf=guess${i}&email=${encodeURIComponent('someone@example.com')}`,
    });
    expect(a.status).toBe(403);
    expect(a.headers['set-cookie']).toBeUndefined();
  }
  expect(await written(host)).toBe(before);
  // The address still has its whole count for views.
  const views = [await view(host, inquiry, { from }), await view(host, inquiry, { from })];
  expect(views.map((a) => a.status)).toEqual([200, 200]);
});

test('behind a trusted proxy: IPv6 clients of one /64 share a count, another /64 and IPv4 clients have their own', async () => {
  const host = await startConnect(cx.infra, {
    trustProxy: 'loopback',
    config: { newFlowRate: { points: 2, windowSeconds: 60 }, redisPrefix: uniqueName('connect') },
  });
  try {
    const from = (address: string) => view(host, '/account', { headers: { 'x-forwarded-for': address } });
    const before = await written(host);
    expect((await from('2001:db8:5:6::1')).status).toBe(200);
    expect((await from('2001:db8:5:6:aaaa:bbbb:cccc:dddd')).status).toBe(200);
    // A third address of the same /64 is the same client: nothing written.
    expectLimitedPage(await from('2001:db8:5:6::3'));
    expect(await written(host)).toBe(before + 2);
    expect((await from('2001:db8:5:7::1')).status).toBe(200);
    // IPv4 clients, plain or IPv4-mapped, still count one address each.
    for (const address of ['192.0.2.10', '::ffff:192.0.2.11', '::ffff:192.0.2.12'])
      expect((await from(address)).status).toBe(200);
    expect(await written(host)).toBe(before + 6);
  } finally {
    await host.close();
  }
});
