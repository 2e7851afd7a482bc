// A readiness answer never rests on stale evidence: a check made while a probe is already in flight is answered by a
// probe that starts after it (against real Redis through a fault proxy, cut between a PONG and the check), and a
// burst of checks during one probe costs one more probe, not one each.
import { type FaultProxy, startFaultProxy, testUrls } from '@svc/testkit';
import { createDependencyWatch, type DependencyWatch } from './dependencies';
import { createLogger } from './logger';
import { createRedis, type Redis } from './redis';

let proxy: FaultProxy;
let redis: Redis;
let watch: DependencyWatch | undefined;
beforeAll(async () => {
  const target = new URL(testUrls.redis);
  proxy = await startFaultProxy({ host: target.hostname, port: Number(target.port || 6379) });
  redis = createRedis(proxy.urlFor(testUrls.redis), {
    bounds: { connectTimeoutMs: 500, commandTimeoutMs: 500 },
  });
});
afterEach(async () => {
  watch?.close();
  await proxy.pass();
});
afterAll(async () => {
  redis.disconnect();
  await proxy.close();
});

const quiet = () => createLogger('dependencies-fresh', { level: 'silent' });

/** A gate the test opens: a probe that awaits it holds an answer it already has, as a busy event loop does. */
function gate() {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((r) => {
    open = r;
  });
  return { opened, open };
}

test('a check made after a cut is not answered by a probe that got its PONG before the cut', async () => {
  let held: ReturnType<typeof gate> | undefined;
  let pongs = 0;
  watch = createDependencyWatch({
    logger: quiet(),
    probes: {
      redis: async () => {
        const pong = await redis.ping();
        pongs++;
        // The PONG is in; its answer reaches the watch only once the gate opens.
        if (held) await held.opened;
        return pong;
      },
    },
    recheckMs: 60_000,
  });
  expect(await watch.check()).toBe(true);

  held = gate();
  const before = watch.check();
  while (pongs < 2) await new Promise((r) => setImmediate(r));
  // Redis goes away after it answered that probe, before /readyz asks.
  await proxy.cut();
  held.open();
  held = undefined;
  const after = watch.check();
  // The probe that began before the cut may say what it saw; the check made after it must not.
  expect(await before).toBe(true);
  expect(await after).toBe(false);
  expect(watch.states()).toEqual({ redis: 'down' });
  await proxy.pass();
  expect(await watch.check()).toBe(true);
});

test('checks made while a probe runs share the one probe after it', async () => {
  let probes = 0;
  let held: ReturnType<typeof gate> | undefined;
  watch = createDependencyWatch({
    logger: quiet(),
    probes: {
      redis: async () => {
        probes++;
        const pong = await redis.ping();
        if (held) await held.opened;
        return pong;
      },
    },
  });
  held = gate();
  const first = watch.check();
  const burst = Array.from({ length: 20 }, () => watch!.check());
  held.open();
  held = undefined;
  expect(await Promise.all([first, ...burst])).toEqual(Array(21).fill(true));
  expect(probes).toBe(2);
});
