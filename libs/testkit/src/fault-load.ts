// Steady load for fault tests: a number of workers each sending one request after another, every answer recorded
// with when it ended and how long it took, so a test can ask what happened before, during and after a fault.
import type { FaultProxy } from './fault-proxy';
import { stalledMs, timed } from './stall-meter';

export interface Outcome {
  worker: number;
  /** When the answer arrived (Date.now()). */
  at: number;
  /** How long the request took, in ms. */
  ms: number;
  /** How much of `ms` this process was held up (stall-meter.ts): not the host's doing, and not a wait on I/O. */
  stalledMs: number;
  /** The HTTP status, or 0 when the connection failed without an answer. */
  status: number;
  reason?: string;
  retryAfter?: string | null;
}

export interface Load {
  readonly outcomes: Outcome[];
  /** Answers that arrived at or after `t`. */
  since(t: number): Outcome[];
  /** Stops sending and waits for the requests in flight. */
  stop(): Promise<void>;
}

export interface LoadOptions {
  /** Pause after an answer other than 200 before the worker's next request (a client's back-off). */
  backoffMs?: number;
}

/**
 * Starts `workers` loops of `attempt(worker)`. An attempt returns what it got; a thrown error (connection refused
 * or reset) is recorded as status 0.
 */
export function startLoad(
  workers: number,
  attempt: (worker: number) => Promise<{ status: number; reason?: string; retryAfter?: string | null }>,
  opts: LoadOptions = {},
): Load {
  const outcomes: Outcome[] = [];
  let stopped = false;
  const loop = async (worker: number) => {
    while (!stopped) {
      const started = Date.now();
      const stalledBefore = stalledMs();
      let answer: { status: number; reason?: string; retryAfter?: string | null };
      try {
        answer = await attempt(worker);
      } catch {
        answer = { status: 0 };
      }
      const at = Date.now();
      const stalled = Math.round(stalledMs() - stalledBefore);
      outcomes.push({ worker, at, ms: at - started, stalledMs: stalled, ...answer });
      if (answer.status !== 200 && opts.backoffMs) await new Promise((r) => setTimeout(r, opts.backoffMs));
    }
  };
  const loops = Array.from({ length: workers }, (_, i) => loop(i));
  return {
    outcomes,
    since: (t) => outcomes.filter((o) => o.at >= t),
    async stop() {
      stopped = true;
      await Promise.all(loops);
    },
  };
}

/** Times a GET of `url`: its status, how long it took and how much of that this process was held up. */
export async function timedGet(url: string): Promise<{ status: number; ms: number; stalledMs: number }> {
  const t = await timed(async () => {
    const res = await fetch(url);
    await res.arrayBuffer();
    return res.status;
  });
  return { status: t.value, ms: t.ms, stalledMs: t.stalledMs };
}

/** The figures RELIABILITY.md records for one fault. */
export interface FaultFigures {
  scenario: string;
  requests: number;
  /** Answers by status (0: no answer). */
  statuses: Record<string, number>;
  /** 5xx answers other than 503. */
  other5xx: number;
  /** From the fault to the first 503 answer (ms), or null when no request needed the dependency. */
  msToFirst503: number | null;
  /** The longest any request took while the fault lasted (ms). */
  slowestMs: number;
  /** How long /readyz took to say 503 after the fault (ms). */
  readyzMs: number;
  /** How much of `readyzMs` this process was held up (a loaded machine's doing, not the host's). */
  readyzStalledMs: number;
  /** From the end of the fault until every worker had a 200 again and /readyz said ready (ms). */
  msToRecover: number;
}

export function countStatuses(outcomes: Outcome[]): Record<string, number> {
  const statuses: Record<string, number> = {};
  for (const o of outcomes) statuses[o.status] = (statuses[o.status] ?? 0) + 1;
  return statuses;
}

export interface FaultScenario {
  scenario: string;
  proxy: FaultProxy;
  fault: 'stall' | 'cut';
  /** The host under test (its /readyz is asked). */
  hostUrl: string;
  load: Load;
  workers: number;
  /**
   * Whether the load's requests need this dependency (else they may go on answering 200); per worker for a load
   * that mixes requests that need it with requests that do not.
   */
  requestsNeedIt: boolean | ((worker: number) => boolean);
}

/** How many refusals each worker sees before the fault is cleared. */
const FAILURES_PER_WORKER = 3;

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await wait(25);
  }
}

const everyWorker = (outcomes: Outcome[], workers: number, pred: (o: Outcome) => boolean) =>
  new Set(outcomes.filter(pred).map((o) => o.worker)).size === workers;

/**
 * Runs one fault under load: waits until every worker has been answered 200, injects the fault, times /readyz,
 * waits until every worker has felt it (a 503, when its requests need the dependency), clears the fault and waits
 * until every worker has a 200 again and /readyz is ready. Returns the figures; the caller asserts on them and on
 * `load.outcomes`.
 */
export async function runFault(s: FaultScenario): Promise<FaultFigures> {
  await until(() => everyWorker(s.load.outcomes, s.workers, (o) => o.status === 200), 60_000, 'warm load');
  const faultAt = Date.now();
  if (s.fault === 'stall') s.proxy.stall();
  else await s.proxy.cut();
  const readyz = await timedGet(`${s.hostUrl}/readyz`);
  if (readyz.status !== 503) throw new Error(`/readyz answered ${readyz.status} during ${s.scenario}`);
  const needs = (w: number) =>
    typeof s.requestsNeedIt === 'function' ? s.requestsNeedIt(w) : s.requestsNeedIt;
  const needing = Array.from({ length: s.workers }, (_, w) => w).filter(needs);
  // Every worker whose requests need the dependency keeps retrying through the fault until it has been refused
  // FAILURES_PER_WORKER times; the others must go on being answered during it.
  await until(
    () => {
      const refused = new Map<number, number>();
      for (const o of s.load.since(faultAt)) {
        if (o.status === 503) refused.set(o.worker, (refused.get(o.worker) ?? 0) + 1);
      }
      return needing.every((w) => (refused.get(w) ?? 0) >= FAILURES_PER_WORKER);
    },
    60_000,
    `${FAILURES_PER_WORKER} 503s for every worker that needs it (${s.scenario})`,
  );
  if (needing.length < s.workers) {
    await until(
      () => s.load.since(faultAt + readyz.ms).some((o) => o.status === 200 && !needs(o.worker)),
      30_000,
      `requests answered during ${s.scenario}`,
    );
  }
  const clearAt = Date.now();
  await s.proxy.pass();
  await until(
    () => everyWorker(s.load.since(clearAt), s.workers, (o) => o.status === 200),
    60_000,
    `recovery from ${s.scenario}`,
  ).catch((err: Error) => {
    // Say what each worker got since the fault ended: a lost chain (401) and a host still refusing (503) differ.
    const got = s.load.since(clearAt).map((o) => `${o.worker}:${o.status}${o.reason ? `/${o.reason}` : ''}`);
    throw new Error(`${err.message}; since then: ${[...new Set(got)].join(' ')}`);
  });
  await until(async () => (await timedGet(`${s.hostUrl}/readyz`)).status === 200, 30_000, '/readyz ready');
  const recoveredAt = Date.now();
  const during = s.load.outcomes.filter((o) => o.at >= faultAt && o.at <= recoveredAt);
  const first503 = during.find((o) => o.status === 503);
  return {
    scenario: s.scenario,
    requests: during.length,
    statuses: countStatuses(during),
    other5xx: during.filter((o) => o.status >= 500 && o.status !== 503).length,
    msToFirst503: first503 ? first503.at - faultAt : null,
    slowestMs: Math.max(0, ...during.map((o) => o.ms)),
    readyzMs: readyz.ms,
    readyzStalledMs: readyz.stalledMs,
    msToRecover: recoveredAt - clearAt,
  };
}
