// A primary failover under load, for the engine tests: waits until every worker has been answered, fails the
// primary, waits for the new one, and measures how long the hosts took to take traffic again on it (CONTRACTS.md
// "Distributed engines": within 10 s of the new primary, without a restart).
import { countStatuses, type Load, type Outcome, timedGet } from './fault-load';
import { waitUntil } from './wait';

/** The figures RELIABILITY.md records for one failover. */
export interface FailoverFigures {
  scenario: string;
  /** Answers from the failure until recovery. */
  requests: number;
  /** Those answers by status (0: no answer). */
  statuses: Record<string, number>;
  /** Of them, 503s (the refused requests). */
  refused: number;
  /** The answers by the group of the worker that got them (`FailoverScenario.group`), by status. */
  byGroup: Record<string, Record<string, number>>;
  /** From the failure until the new primary took writes (and the connection target named it). */
  msToNewPrimary: number;
  /** From the new primary until every worker and every /readyz had a 200 for a request sent after it. */
  msToRecover: number;
  /** The longest of those answers took, less the time this process was held up (a loaded machine). */
  slowestMs: number;
}

export interface FailoverScenario {
  scenario: string;
  load: Load;
  workers: number;
  /** The hosts whose /readyz must say ready again. */
  hostUrls: string[];
  /** Fails the primary (a crash); resolves once it is gone. */
  fail(): Promise<void>;
  /** Resolves once a new primary takes writes where the hosts connect. */
  promoted(): Promise<void>;
  /**
   * Keeps the old primary gone until every worker has been refused (a 503) this many times since the failure, so
   * the outage is felt before the new primary comes (a detection delay); 0 (the default) promotes at once.
   */
  refusalsFirst?: number;
  /** Names the kind of traffic worker `w` sends (its answers are counted apart); one group when left out. */
  group?: (worker: number) => string;
  /** Bound of each wait (warm load, recovery), ms. */
  timeoutMs?: number;
}

const startedAt = (o: Outcome) => o.at - o.ms;

/** Runs `s`: the load must be started (its workers answering 200 before the failure). Stops the load at the end. */
export async function runFailover(s: FailoverScenario): Promise<FailoverFigures> {
  const timeoutMs = s.timeoutMs ?? 60_000;
  const everyWorker = (pred: (o: Outcome) => boolean) =>
    new Set(s.load.outcomes.filter(pred).map((o) => o.worker)).size === s.workers;
  try {
    await waitUntil(async () => everyWorker((o) => o.status === 200), timeoutMs).catch(() => {
      throw new Error(`${s.scenario}: the load was not answered 200 by every worker before the failure`);
    });
    const failAt = Date.now();
    await s.fail();
    const refusalsFirst = s.refusalsFirst ?? 0;
    if (refusalsFirst > 0) {
      await waitUntil(async () => {
        const refused = new Map<number, number>();
        for (const o of s.load.since(failAt)) {
          if (o.status === 503) refused.set(o.worker, (refused.get(o.worker) ?? 0) + 1);
        }
        return refused.size === s.workers && [...refused.values()].every((n) => n >= refusalsFirst);
      }, timeoutMs).catch(() => {
        const got = s.load.since(failAt).map((o) => `${o.worker}:${o.status}/${o.ms}ms`);
        throw new Error(
          `${s.scenario}: not every worker was refused ${refusalsFirst} times before the promotion; got ${got.join(' ')}`,
        );
      });
    }
    await s.promoted();
    const promotedAt = Date.now();
    const ready = new Set<string>();
    await waitUntil(async () => {
      for (const url of s.hostUrls) {
        if (ready.has(url)) continue;
        const sent = Date.now();
        if (sent >= promotedAt && (await timedGet(`${url}/readyz`)).status === 200) ready.add(url);
      }
      return (
        ready.size === s.hostUrls.length && everyWorker((o) => o.status === 200 && startedAt(o) >= promotedAt)
      );
    }, timeoutMs).catch(() => {
      const got = s.load
        .since(promotedAt)
        .map((o) => `${o.worker}:${o.status}${o.reason ? `/${o.reason}` : ''}`);
      throw new Error(
        `${s.scenario}: no recovery; ${ready.size} of ${s.hostUrls.length} ready; since then: ${[...new Set(got)].join(' ')}`,
      );
    });
    const recoveredAt = Date.now();
    const during = s.load.outcomes.filter((o) => o.at >= failAt && o.at <= recoveredAt);
    const byGroup: Record<string, Record<string, number>> = {};
    for (const o of during) {
      const group = s.group?.(o.worker) ?? 'all';
      byGroup[group] = { ...byGroup[group], [o.status]: (byGroup[group]?.[o.status] ?? 0) + 1 };
    }
    return {
      scenario: s.scenario,
      requests: during.length,
      statuses: countStatuses(during),
      refused: during.filter((o) => o.status === 503).length,
      byGroup,
      msToNewPrimary: promotedAt - failAt,
      msToRecover: recoveredAt - promotedAt,
      slowestMs: Math.max(0, ...during.map((o) => o.ms - o.stalledMs)),
    };
  } finally {
    await s.load.stop();
  }
}

/**
 * Asserts what a failover may answer: each outcome a 200 or a 503 that names the refusal (`reason`) and carries
 * Retry-After. Anything else (a 401 of a lost chain, a 500, no answer) is listed.
 */
export function expectFailClosed(outcomes: Outcome[]): void {
  const wrong = outcomes
    .filter(
      (o) =>
        o.status !== 200 &&
        !(o.status === 503 && o.reason === 'TemporarilyUnavailable' && /^\d+$/.test(o.retryAfter ?? '')),
    )
    .map((o) => `worker ${o.worker}: ${o.status} ${o.reason ?? ''} retry-after=${o.retryAfter ?? ''}`);
  expect(wrong).toEqual([]);
}
