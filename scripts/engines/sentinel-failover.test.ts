// A Redis Sentinel failover under traffic (CONTRACTS.md "Distributed engines"): two session replicas take refresh
// traffic and a device host takes polls (one Redis script each) through Sentinel (ports 17013-17015) when the
// primary is SIGKILLed. Every answer is a 200 or a 503 with Retry-After (never a 401 or a 500), no refresh chain
// forks or is lost, and every host takes traffic on the promoted replica within 10 s of its promotion, without a
// restart; the session caches' change messages (pub/sub) reach every replica again afterwards.
import {
  type Engine,
  expectFailClosed,
  type FailoverFigures,
  openInfra,
  postJson,
  provisionApp,
  recordFaultFigures,
  runFailover,
  type SentinelEngine,
  startLoad,
  startSentinel,
  type TestInfra,
  testEnv,
  waitFor,
  waitUntil,
} from '@svc/testkit';
import {
  authorize,
  type DeviceHarness,
  pollOutcome,
  provisionDeviceApp,
} from '../../services/device/test/support';
import { refreshChains } from '../../services/session/test/chains';
import { accountRefreshTokens, freshSession } from '../../services/session/test/support';
import { startDeviceHost, startSession } from './hosts';

/** Refresh chains (workers 0-7, each alternating between the two session replicas) and device polls (8-11). */
const CHAINS = 8;
const POLLS = 4;
/** CONTRACTS.md: the hosts take traffic within 10 s of the new primary. */
const RECOVERY_BOUND_MS = 10_000;

const figures = recordFaultFigures<FailoverFigures>('engines-sentinel');
const closers: (() => Promise<void>)[] = [];
let engine: SentinelEngine;
let infra: TestInfra;
const sessions: string[] = [];
let device: DeviceHarness;

function hostEnv() {
  return testEnv({
    REDIS_SENTINELS: engine.sentinels,
    REDIS_SENTINEL_MASTER: engine.master,
    // Only a change message may drop a cached session within the test: the cache check below relies on it.
    SESSION_CACHE_MS: '600000',
    REFRESH_RETRY_WINDOW_MS: '60000',
  });
}

beforeAll(async () => {
  engine = await startSentinel({ primary: 17013, replica: 17014, sentinel: 17015 });
  infra = openInfra();
  for (let i = 0; i < 2; i++) {
    const session = await startSession(hostEnv());
    sessions.push(session.host.url);
    closers.push(session.close);
  }
  // The clock moves a second a poll: the authorizations must outlive every poll of the file.
  const deviceHost = await startDeviceHost(hostEnv(), infra, {
    pollIntervalSeconds: 1,
    codeTtlSeconds: 30 * 86_400,
  });
  device = deviceHost.host;
  closers.push(deviceHost.close);
  for (const url of [...sessions, device.url]) {
    await waitFor(`${url} ready`, async () => (await fetch(`${url}/readyz`)).status === 200, 30_000);
  }
}, 120_000);

afterAll(async () => {
  for (const close of closers) await close().catch(() => undefined);
  await infra?.close();
  await (engine as Engine | undefined)?.stop();
});

/** Whether replica `at`'s introspection says the session of `accessToken` is active (its cached row). */
async function activeAt(at: string, accessToken: string): Promise<boolean> {
  const r = await postJson(`${at}/introspect`, { accessToken });
  return r.status === 200 && r.body.status === 'active';
}

/** Refresh chains and device polls under way: the load runFailover watches, and the chains to check after it. */
async function trafficUnderWay() {
  const app = await provisionApp(infra);
  const chains = refreshChains(await accountRefreshTokens(infra, app.anchor, CHAINS));
  const deviceApp = await provisionDeviceApp(infra);
  const codes: string[] = [];
  for (let w = 0; w < POLLS; w++) {
    const started = await authorize(device, deviceApp.anchor);
    expect(started.status).toBe(200);
    codes.push(started.body.deviceCode as string);
  }
  const sent = new Array<number>(CHAINS).fill(0);
  const load = startLoad(
    CHAINS + POLLS,
    async (w) => {
      if (w < CHAINS) {
        sent[w] = (sent[w] ?? 0) + 1;
        return chains.refresh(w, sessions[(w + (sent[w] ?? 0)) % 2]!);
      }
      device.clock.advance(1000);
      // A pending poll is the poll's success; its 503 `server_error` is the spec's TemporarilyUnavailable.
      return pollOutcome(device, codes[w - CHAINS]!);
    },
    { backoffMs: 100 },
  );
  return { chains, load };
}

/** The checks after a failover: fail closed, no chain forked or lost, recovery bound, change messages flow. */
async function expectIntactAfter(
  result: FailoverFigures,
  traffic: Awaited<ReturnType<typeof trafficUnderWay>>,
) {
  figures.push(result);
  expectFailClosed(traffic.load.outcomes);
  await traffic.chains.expectIntact(infra, sessions[0]!);
  expect(result.msToRecover).toBeLessThan(RECOVERY_BOUND_MS);
  // The session caches follow the new primary too: a logout at one replica drops the other's cached row at once.
  const { issued } = await freshSession(infra);
  expect(await activeAt(sessions[1]!, issued.accessToken)).toBe(true);
  const out = await postJson(`${sessions[0]}/logout`, { refreshToken: issued.refreshToken });
  expect([out.status, out.body]).toEqual([200, { revoked: true }]);
  await waitUntil(async () => !(await activeAt(sessions[1]!, issued.accessToken)), 5000);
}

/**
 * One failover under fresh traffic (2 session replicas refreshing, 1 device host polling): `fail` starts it, and it
 * is done once Sentinel names `promotedPort()` the primary; then the checks after it.
 */
async function failoverUnderTraffic(what: string, fail: () => Promise<unknown>, promotedPort: () => number) {
  const traffic = await trafficUnderWay();
  const result = await runFailover({
    scenario: `${what}: 2 session replicas (refresh), 1 device host (polls)`,
    load: traffic.load,
    workers: CHAINS + POLLS,
    hostUrls: [...sessions, device.url],
    group: (w) => (w < CHAINS ? 'session /refresh' : 'device /device-token'),
    async fail() {
      await fail();
    },
    async promoted() {
      await waitFor('promotion', () => engine.primaryPort() === promotedPort(), 30_000);
    },
  });
  await expectIntactAfter(result, traffic);
}

test('primary SIGKILLed under refresh and poll traffic: 200 or 503 with Retry-After, no chain forked or lost, recovery within 10 s', async () => {
  await failoverUnderTraffic(
    'Redis Sentinel primary SIGKILLed',
    () => engine.primary.kill(),
    () => engine.replica.port,
  );
});

test('SENTINEL FAILOVER back to the restarted old primary under the same traffic: the same', async () => {
  // The killed primary comes back; Sentinel makes it a replica of the promoted one.
  await engine.primary.restart();
  await waitFor('the old primary replicating', () => engine.replicating(engine.primary.port), 30_000);
  await failoverUnderTraffic(
    'SENTINEL FAILOVER',
    async () => engine.failover(),
    () => engine.primary.port,
  );
});
