// Polls answered 503 while Redis is frozen change nothing when Redis thaws. The poll script of each was held on the
// wire and Redis ran them all on thawing, with the times the polls arrived: the first counted as the last poll and
// the others, moments apart, as too fast, so a device that obeyed `Retry-After: 1` found its interval pushed from
// 5 to 15 s and its next poll answered slow_down. Each poll now carries its deadline on Redis's clock
// (libs/device-grant redis-deadline.ts) and the script ignores a poll that runs after it: docs/device.md's "a 503 leaves the
// authorization untouched".
import { type FaultProxy, startFaultProxy, testUrls } from '@svc/testkit';
import { authorize, type DeviceHarness, poll, provisionDeviceApp, startDevice } from './support';

let proxy: FaultProxy;
let h: DeviceHarness;

beforeAll(async () => {
  const redis = new URL(testUrls.redis);
  proxy = await startFaultProxy({ host: redis.hostname, port: Number(redis.port || 6379) });
  h = await startDevice({}, undefined, { redisUrl: proxy.urlFor(testUrls.redis) });
});
afterAll(async () => {
  await h.close();
  await proxy.close();
});

test('polls answered 503 during a Redis freeze do not count once it thaws', async () => {
  h.clock.set(Date.now());
  const app = await provisionDeviceApp(h.infra);
  const started = await authorize(h, app.anchor);
  expect(started.status).toBe(200);
  const { deviceCode, interval } = started.body as { deviceCode: string; interval: number };
  expect((await poll(h, deviceCode)).body).toEqual({ error: 'authorization_pending' });

  proxy.stall();
  // On time, then as Retry-After says: each held by the frozen Redis until the host gives up.
  for (const wait of [interval * 1000, 1000, 1000]) {
    h.clock.advance(wait);
    const refused = await poll(h, deviceCode);
    expect([refused.status, refused.body, refused.headers.get('retry-after')]).toEqual([
      503,
      { error: 'server_error' },
      '1',
    ]);
  }
  await proxy.pass();
  // A command sent after the held ones on the host's connection is answered after Redis has run them.
  await h.deps.redis.ping();

  h.clock.advance(1000);
  const after = await poll(h, deviceCode);
  expect([after.status, after.body]).toEqual([400, { error: 'authorization_pending' }]);
}, 60_000);
