// The new-flow limit per client address (DEVICE_NEW_FLOW_RATE_PER_MINUTE) on the real approval page over Redis:
// views of /device by a browser without a flow start one until the limit; past it a 429 "too many attempts" page
// with Retry-After and no flow written. A browser holding its flow goes on, another client address is admitted,
// and a forged X-Forwarded-For (TRUST_PROXY unset) is no new address. The harness's host keeps its Redis state
// under a prefix of its own (DEVICE_REDIS_PREFIX): the other test files' hosts write flows to the same Redis db at
// the same time, so only this file's keys are counted.
import { type AddressedAnswer, expectLimitedPage, requestFrom } from '@svc/testkit';
import { type PageHarness, startPages } from './page-kit';

let h: PageHarness;
beforeAll(async () => {
  h = await startPages({}, 3);
});
afterAll(() => h?.close());

type Answer = AddressedAnswer;

/** GET of a path from `from` (127.0.0.2 is another client address of the host listening on 127.0.0.1). */
function view(
  path: string,
  opts: { cookie?: string; from?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const cookie: Record<string, string> = opts.cookie ? { cookie: opts.cookie } : {};
  return requestFrom(h.url, { path, from: opts.from, headers: { ...cookie, ...opts.headers } });
}

const flows = async () => (await h.deps.redis.keys(`${h.deps.config.redisPrefix}:flow:session:*`)).length;
const cookieOf = (a: Answer) => String(a.headers['set-cookie']?.[0]).split(';')[0] as string;

test('/device: views without a flow over the limit are the 429 page and write nothing; a browser with its flow goes on', async () => {
  const before = await flows();
  const fresh = [await view('/device'), await view('/device?user_code=ABCD-EFGH'), await view('/device')];
  expect(fresh.map((a) => a.status)).toEqual([200, 200, 200]);
  expect(await flows()).toBe(before + 3);
  // The cookie keeps its name whatever the Redis prefix.
  expect(cookieOf(fresh[0] as Answer)).toMatch(/^device_flow=/);
  // Past it: no cookie, a cookie the host never issued, a forged client address: nothing written.
  expectLimitedPage(await view('/device'));
  expectLimitedPage(await view('/device', { cookie: 'device_flow=forged' }));
  const zh = await view('/device', { headers: { 'accept-language': 'zh-CN' } });
  expect(zh.status).toBe(429);
  expect(zh.body).toContain(`尝试次数过多。请在${zh.headers['retry-after']}秒`);
  expectLimitedPage(await view('/device', { headers: { 'x-forwarded-for': '203.0.113.9' } }));
  expect(await flows()).toBe(before + 3);
  // A browser holding its flow goes on, counted nowhere.
  const own = await view('/device', { cookie: cookieOf(fresh[0] as Answer) });
  expect(own.status).toBe(200);
  expect(own.headers['set-cookie']).toBeUndefined();
  expect(await flows()).toBe(before + 3);
  // Another client address has a count of its own.
  expect((await view('/device', { from: '127.0.0.2' })).status).toBe(200);
  expect(await flows()).toBe(before + 4);
});
