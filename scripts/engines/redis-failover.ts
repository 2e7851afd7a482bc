// A Redis failover under traffic, as the Sentinel and Cluster failover files run it (CONTRACTS.md "Distributed
// engines"): two session replicas take refresh chains (each alternating replicas) and a device host takes polls (one
// Redis script each) while the test fails the Redis primary; then every answer was a 200 or a 503 with Retry-After,
// no chain forked or was lost, every host took traffic again within 10 s of the new primary without a restart, and
// the session caches' change messages (pub/sub) reach every replica again.
import { deviceCodeHash } from '@svc/device-grant';
import type { Env } from '@svc/platform';
import {
  expectFailClosed,
  type FailoverFigures,
  openInfra,
  postJson,
  provisionApp,
  runFailover,
  startLoad,
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

/** What a failover's `fail` may aim at and wait for: the polls' Redis keys, and their refusals. */
export interface TrafficKeys {
  pollKeys: string[];
  /** Whether every poll worker has been refused (503) at least `times` times since `since` (Date.now()). */
  everyPollRefused(since: number, times: number): boolean;
}

export interface RedisFailoverHosts {
  infra: TestInfra;
  /**
   * One failover under fresh traffic: `fail` starts it (it may pick its target by the traffic's keys), and it is done
   * once `promoted()` holds (bounded); then the checks after it. Its figures are pushed to `figures` and returned.
   */
  failoverUnderTraffic(
    what: string,
    fail: (keys: TrafficKeys) => Promise<unknown>,
    promoted: () => boolean,
  ): Promise<FailoverFigures>;
  close(): Promise<void>;
}

/**
 * The two session replicas and the device host on the Redis that `redisEnv` names (REDIS_SENTINELS or
 * REDIS_CLUSTER_NODES), each ready; every failover's figures are pushed to `figures`.
 */
export async function openRedisFailoverHosts(
  redisEnv: Env,
  figures: FailoverFigures[],
): Promise<RedisFailoverHosts> {
  const env = testEnv({
    ...redisEnv,
    // Only a change message may drop a cached session within the test: the cache check below relies on it.
    SESSION_CACHE_MS: '600000',
    REFRESH_RETRY_WINDOW_MS: '60000',
  });
  const infra = openInfra();
  const closers: (() => Promise<void>)[] = [];
  const close = async () => {
    for (const c of closers) await c().catch(() => undefined);
    await infra.close();
  };
  try {
    const sessions: string[] = [];
    for (let i = 0; i < 2; i++) {
      const session = await startSession(env);
      sessions.push(session.host.url);
      closers.push(session.close);
    }
    // The clock moves a second a poll: the authorizations must outlive every poll of the file.
    const deviceHost = await startDeviceHost(env, infra, {
      pollIntervalSeconds: 1,
      codeTtlSeconds: 30 * 86_400,
    });
    closers.push(deviceHost.close);
    const device = deviceHost.host;
    for (const url of [...sessions, device.url]) {
      await waitFor(`${url} ready`, async () => (await fetch(`${url}/readyz`)).status === 200, 30_000);
    }
    return {
      infra,
      async failoverUnderTraffic(what, fail, promoted) {
        const traffic = await trafficUnderWay(infra, sessions, device);
        const result = await runFailover({
          scenario: `${what}: 2 session replicas (refresh), 1 device host (polls)`,
          load: traffic.load,
          workers: CHAINS + POLLS,
          hostUrls: [...sessions, device.url],
          group: (w) => (w < CHAINS ? 'session /refresh' : 'device /device-token'),
          async fail() {
            await fail({ pollKeys: traffic.pollKeys, everyPollRefused: traffic.everyPollRefused });
          },
          async promoted() {
            await waitFor('promotion', promoted, 30_000);
          },
        });
        figures.push(result);
        expectFailClosed(traffic.load.outcomes);
        await traffic.chains.expectIntact(infra, sessions[0]!);
        expect(result.msToRecover).toBeLessThan(RECOVERY_BOUND_MS);
        await expectChangeMessagesFlow(infra, sessions);
        return result;
      },
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

/** Refresh chains and device polls under way: the load runFailover watches, the chains and the polls' keys. */
async function trafficUnderWay(infra: TestInfra, sessions: string[], device: DeviceHarness) {
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
  // libs/device-grant/src/store/polling.ts keeps each authorization's polling state under this key.
  const pollKeys = codes.map((c) => `${device.deps.config.redisPrefix}:poll:${deviceCodeHash(c)}`);
  const everyPollRefused = (since: number, times: number) => {
    const refused = load.since(since).filter((o) => o.worker >= CHAINS && o.status === 503);
    return codes.every((_, i) => refused.filter((o) => o.worker === CHAINS + i).length >= times);
  };
  return { chains, load, pollKeys, everyPollRefused };
}

/** Whether replica `at`'s introspection says the session of `accessToken` is active (its cached row). */
async function activeAt(at: string, accessToken: string): Promise<boolean> {
  const r = await postJson(`${at}/introspect`, { accessToken });
  return r.status === 200 && r.body.status === 'active';
}

/** The session caches follow the new primary too: a logout at one replica drops the other's cached row at once. */
async function expectChangeMessagesFlow(infra: TestInfra, sessions: string[]) {
  const { issued } = await freshSession(infra);
  expect(await activeAt(sessions[1]!, issued.accessToken)).toBe(true);
  const out = await postJson(`${sessions[0]}/logout`, { refreshToken: issued.refreshToken });
  expect([out.status, out.body]).toEqual([200, { revoked: true }]);
  await waitUntil(async () => !(await activeAt(sessions[1]!, issued.accessToken)), 5000);
}
