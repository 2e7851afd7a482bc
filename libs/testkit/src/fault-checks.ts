// What every dependency-fault test asserts, whichever host it runs against: the load answered only 200 or a prompt
// 503 TemporarilyUnavailable, /readyz said 503 at once, and the outage was logged and counted once each way.
import { type Metrics, READINESS_DEADLINE_MS } from '@svc/platform';
import type { CapturedLog } from './capture-logger';
import { testUrls } from './config';
import { type FaultFigures, type FaultScenario, runFault, timedGet } from './fault-load';
import { type FaultProxy, startFaultProxy } from './fault-proxy';
import { waitUntil } from './wait';

/** The upstream a fault proxy stands in front of: a URL's host and port (`fallback` when it names none). */
function upstreamOf(url: string, fallback: number): { host: string; port: number } {
  const u = new URL(url);
  return { host: u.hostname, port: Number(u.port || fallback) };
}

export interface DependencyProxies {
  /** In front of the test PostgreSQL: a host reaches it at `pg.urlFor(testUrls.database)`. */
  pg: FaultProxy;
  /** In front of the test Redis: `redis.urlFor(testUrls.redis)`. */
  redis: FaultProxy;
  close(): Promise<void>;
}

/** Fault proxies in front of the test PostgreSQL and Redis, passing until a test says otherwise. */
export async function proxyDependencies(): Promise<DependencyProxies> {
  const pg = await startFaultProxy(upstreamOf(testUrls.database, 5432));
  const redis = await startFaultProxy(upstreamOf(testUrls.redis, 6379));
  return {
    pg,
    redis,
    async close() {
      await pg.close();
      await redis.close();
    },
  };
}

/** `/readyz` answers within this whatever the dependencies do: its own deadline (1.5 s) and a margin (RELIABILITY.md). */
const READYZ_BOUND_MS = READINESS_DEADLINE_MS + 500;

/**
 * Runs `s` (runFault), stops its load whatever happens, and asserts the answers: no 5xx but 503, /readyz 503
 * within 2 s, every request a 200 or a 503 TemporarilyUnavailable whose Retry-After matches `retryAfter`, none
 * slower than `boundMs`. Returns the figures.
 *
 * The two time bounds are the host's own (the sum of its configured dependency timeouts; the readiness deadline),
 * so they are checked on the time the process could run: wall time less what the stall meter saw this process held
 * up over the same request. The hosts run in this process, so their timers were held up just as much; a request
 * that waited on a stalled dependency beyond its timeouts waited idle, which the meter does not excuse. On a quiet
 * machine the two are the same; at load 30 wall time alone has run 2 s over (4.3 s for /readyz, 9.1 s for 9 s).
 */
export async function runContainedFault(
  s: FaultScenario & { boundMs: number; retryAfter: RegExp },
): Promise<FaultFigures> {
  let result: FaultFigures;
  try {
    result = await runFault(s);
  } finally {
    await s.load.stop();
  }
  expect(result.other5xx).toBe(0);
  const readyz = { ms: result.readyzMs, stalledMs: result.readyzStalledMs };
  expect({ ...readyz, withinBound: readyz.ms - readyz.stalledMs < READYZ_BOUND_MS }).toMatchObject({
    withinBound: true,
  });
  const overBound: string[] = [];
  for (const o of s.load.outcomes) {
    expect([200, 503]).toContain(o.status);
    if (o.status === 503) {
      expect(o.reason).toBe('TemporarilyUnavailable');
      expect(o.retryAfter).toMatch(s.retryAfter);
    }
    if (o.ms - o.stalledMs > s.boundMs)
      overBound.push(`${o.status} in ${o.ms} ms, ${o.stalledMs} ms of it held up`);
  }
  expect(overBound).toEqual([]);
  return result;
}

/** What RELIABILITY.md records of a fault without load: how soon /readyz said 503, how soon it was ready again. */
export interface ReadyzFigures {
  scenario: string;
  readyzMs: number;
  /** How much of `readyzMs` this process was held up (a loaded machine's doing, not the host's). */
  readyzStalledMs: number;
  /** From the end of the fault until /readyz said ready (ms). */
  msToRecover: number;
}

/**
 * A fault with no load, for a host whose readiness is what is asked of it: /readyz answers 503 within 2 s (on the
 * time this process could run, as runContainedFault judges it) while `proxy` stalls or cuts, and says ready again
 * without a restart once the fault ends. The fault always ends, whatever was asserted.
 */
export async function expectReadyzFault(s: {
  scenario: string;
  proxy: FaultProxy;
  fault: 'stall' | 'cut';
  hostUrl: string;
}): Promise<ReadyzFigures> {
  if (s.fault === 'stall') s.proxy.stall();
  else await s.proxy.cut();
  let readyz: Awaited<ReturnType<typeof timedGet>>;
  try {
    readyz = await timedGet(`${s.hostUrl}/readyz`);
  } finally {
    await s.proxy.pass();
  }
  const clearAt = Date.now();
  expect({
    ...readyz,
    withinBound: readyz.ms - readyz.stalledMs < READYZ_BOUND_MS,
  }).toMatchObject({
    status: 503,
    withinBound: true,
  });
  await waitUntil(async () => (await timedGet(`${s.hostUrl}/readyz`)).status === 200, 30_000);
  return {
    scenario: s.scenario,
    readyzMs: readyz.ms,
    readyzStalledMs: readyz.stalledMs,
    msToRecover: Date.now() - clearAt,
  };
}

/** The figures of a file's faults, written to stdout as one JSON line after its tests (RELIABILITY.md records them). */
export function recordFaultFigures<F = FaultFigures>(host: string): F[] {
  const figures: F[] = [];
  afterAll(() => {
    process.stdout.write(`${JSON.stringify({ host, figures })}\n`);
  });
  return figures;
}

/** dependency_state_changes_total for one dependency, by state. */
export async function stateChanges(
  metrics: Metrics,
  dependency: string,
): Promise<{ down: number; up: number }> {
  const metric = await metrics.registry.getSingleMetric('dependency_state_changes_total')?.get();
  const count = (state: string) =>
    metric?.values.find((v) => v.labels.dependency === dependency && v.labels.state === state)?.value ?? 0;
  return { down: count('down'), up: count('up') };
}

/**
 * Asserts the outage was seen once each way since log line `from`: exactly one down line (warn) and then one up
 * line (info) about `dependency`, nothing else at warn or above, no stack anywhere (per-request 503s are debug
 * lines); and the state-change metric counted one more of each than `before`.
 */
export async function expectOneDownOneUp(
  log: CapturedLog,
  from: number,
  dependency: string,
  metrics: Metrics,
  before: { down: number; up: number },
): Promise<void> {
  const changes = log.lines.slice(from).filter((l) => l.dependency === dependency && l.state);
  expect(changes.map((l) => [l.state, l.level])).toEqual([
    ['down', 40],
    ['up', 30],
  ]);
  for (const l of log.lines.slice(from)) {
    expect(JSON.stringify(l)).not.toMatch(/"stack"|\n\s+at /);
    if ((l.level as number) >= 40) expect(l.state).toBe('down');
  }
  expect(await stateChanges(metrics, dependency)).toEqual({ down: before.down + 1, up: before.up + 1 });
}

export interface DependencyFault {
  dependency: 'postgres' | 'redis';
  proxy: FaultProxy;
  fault: 'stall' | 'cut';
}

/**
 * The fault matrix of a host's fault file: one test per dependency (PostgreSQL, Redis) and fault (stall, cut), named
 * `${title} when <dependency> fails` / `<fault>: ${what}`. Each runs `scenario` and then asserts the outage was
 * logged and counted once each way (expectOneDownOneUp) on `log` and `metrics`.
 */
export function eachDependencyFault(
  title: string,
  what: string,
  watched: { proxies: () => DependencyProxies; log: CapturedLog; metrics: Metrics },
  scenario: (f: DependencyFault) => Promise<void>,
  timeoutMs = 120_000,
): void {
  describe.each([
    ['PostgreSQL', 'postgres'],
    ['Redis', 'redis'],
  ] as const)(`${title} when %s fails`, (_name, dependency) => {
    it.each(['stall', 'cut'] as const)(
      `%s: ${what}`,
      async (fault) => {
        const from = watched.log.lines.length;
        const before = await stateChanges(watched.metrics, dependency);
        const proxies = watched.proxies();
        await scenario({ dependency, proxy: dependency === 'postgres' ? proxies.pg : proxies.redis, fault });
        await expectOneDownOneUp(watched.log, from, dependency, watched.metrics, before);
      },
      timeoutMs,
    );
  });
}
