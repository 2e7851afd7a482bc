// Events to applications for `pnpm bench` (BENCH_ONLY=events): the real worker process (`pnpm start:worker`) drains
// the outbox to a loopback receiver in this process (202 at once) while session logouts through the issuance domain
// (revokeFamily, the statement that revokes a session and writes its session-revoked row) commit at a steady rate.
// Per run: delivered events/s, commit -> first attempt (the outbox's created_at -> first_attempt_at, as the worker's
// events_delivery_latency_seconds) and commit return -> arrival at the receiver, failed attempts, the outbox depth.
// Target (#39): p95 commit -> first attempt <= 2 s and 1,000 events/s delivered on this machine.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { issueSession, revokeFamily } from '@svc/issuance';
import { createApplicationsStore } from '@svc/issuance/stores';
import { systemClock } from '@svc/platform';
import { setEventSubscription } from '@svc/provisioning';
import { provisionAccount, provisionApp, type TestInfra } from '@svc/testkit';
import { type BenchHost, startWorkerProcess } from './hosts';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
/** Logouts committed per second, and for how long: more events than one delivery batch many times over. */
const RATE = Number(process.env.BENCH_EVENTS_RATE ?? 1000);
const SECONDS = Number(process.env.BENCH_EVENTS_SECONDS ?? 10);
/**
 * Sessions one change ends: 1, a logout (revokeFamily, as /logout); more, a revoke-all of an account holding that
 * many sessions (revokeAccountSessions and its cache message, as /revoke-all): one commit, that many events.
 */
const PER_CHANGE = Math.max(1, Number(process.env.BENCH_EVENTS_PER_CHANGE ?? 1));
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
/** Logouts are started in a batch every TICK_MS (RATE * TICK_MS / 1000 of them), the schedule kept in absolute time. */
const TICK_MS = 20;
/** Changes in flight at most (the bench's pool has 10 connections). */
const MAX_IN_FLIGHT = 40;
/** How long a run waits for its last events after the last commit before it counts the missing ones. */
const DRAIN_LIMIT_MS = Number(process.env.BENCH_EVENTS_DRAIN_MS ?? 60_000);
const METRICS_PORT = 24113;
const TARGET_P95_MS = 2000;
const TARGET_PER_SEC = 1000;

const now = () => performance.timeOrigin + performance.now();

const pct = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]! : Number.NaN;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

/** The loopback receiver: answers 202 at once, then notes when each sid's SET arrived (the first time) and repeats. */
async function startReceiver() {
  const arrivals = new Map<string, number>();
  let repeats = 0;
  let unreadable = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = now();
      res.writeHead(202).end();
      try {
        // The SET is the worker's own output: only its sid is read here, unverified (the delivery tests verify).
        const payload = Buffer.concat(chunks).toString('utf8').split('.')[1]!;
        const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as {
          events: Record<string, { sid: string }>;
        };
        const sid = Object.values(claims.events)[0]!.sid;
        if (arrivals.has(sid)) repeats++;
        else arrivals.set(sid, at);
      } catch {
        unreadable++;
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/security-events`,
    arrivals,
    counts: () => ({ repeats, unreadable }),
    reset() {
      arrivals.clear();
      repeats = 0;
      unreadable = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The worker's failed attempts by reason (events_delivery_failures_total) and its CPU seconds, every thread
 * (process_cpu_seconds_total: signing runs on libuv's pool), from its metrics port.
 */
async function workerFailures(): Promise<Map<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${METRICS_PORT}/metrics`)).text();
  const byReason = new Map<string, number>();
  const cpu = /^process_cpu_seconds_total(?:\{[^}]*\})? (\S+)$/m.exec(text);
  byReason.set('cpu', Number(cpu?.[1] ?? Number.NaN));
  for (const l of text.split('\n')) {
    if (!l.startsWith('events_delivery_failures_total{')) continue;
    const reason = /reason="([^"]*)"/.exec(l)?.[1] ?? '?';
    byReason.set(reason, (byReason.get(reason) ?? 0) + Number(l.split(' ').pop()));
  }
  return byReason;
}

export interface EventsRun {
  produced: number;
  /** Logouts committed per second (the offered load, which a busy machine may hold below RATE). */
  committedPerSec: number;
  /** (arrived - 1) / (last arrival - first arrival): the rate the worker delivered at. */
  deliveredPerSec: number;
  arrived: number;
  missing: number;
  repeats: number;
  /** Commit -> first attempt from the outbox rows (ms): created_at -> first_attempt_at. */
  attempt: { p50: number; p95: number; p99: number; max: number };
  /** The committing call's return -> arrival at the receiver (ms), measured in this process. */
  arrival: { p50: number; p95: number; p99: number; max: number };
  /** Failed attempts the worker counted during the run (any application), by reason; this run's rows not delivered. */
  failures: number;
  failureReasons: Record<string, number>;
  /** The worker's CPU time (all threads) per event committed in the run. */
  workerCpuMsPerEvent: number;
  /** p99 event-loop delay of this process (producer and receiver) during the run. */
  benchLoopDelayP99Ms: number;
  undelivered: number;
  /** Pending outbox rows (every application) when the last logout committed, and when the run ended. */
  depthAtLastCommit: number;
  depthAtEnd: number;
  producerErrors: number;
}

export async function benchEvents(infra: TestInfra, hosts: BenchHost[]): Promise<Record<string, unknown>> {
  const receiver = await startReceiver();
  const app = await provisionApp(infra, { methods: ['ACCESS_KEY_DIRECT'] });
  await setEventSubscription(
    infra.provisioning,
    { production: false, allowPrivate: false },
    app.anchor,
    { url: receiver.url, events: ['session-revoked'] },
    systemClock,
  );
  const application = (await createApplicationsStore(infra.db).loadApplication({ anchor: app.anchor }))!;
  const worker = await startWorkerProcess({ METRICS_PORT: String(METRICS_PORT) });
  hosts.push(worker, { url: receiver.url, stop: receiver.close });

  // The sessions a run ends: issued once through the issuance core, outside the measured time, and made live
  // again before each run (a fixture's UPDATE), so each run's changes are real revocations with real events.
  const perRun = Math.round(RATE * SECONDS);
  // Provisioned a few at a time: each is an audited change, and the audit chain takes them one by one.
  const accounts: { id: string }[] = [];
  for (let n = PER_CHANGE > 1 ? Math.ceil(perRun / PER_CHANGE) : 20; accounts.length < n; )
    accounts.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(10, n - accounts.length) }, () => provisionAccount(infra)),
      )),
    );
  const accountOf = (i: number) =>
    accounts[PER_CHANGE > 1 ? Math.floor(i / PER_CHANGE) : i % accounts.length]!.id;
  const changes: { accountId: string; sids: string[] }[] = [];
  const issueStart = now();
  for (let issued = 0; issued < perRun; ) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(100, perRun - issued) }, (_, j) =>
        issueSession(infra.issuance, {
          application,
          principal: { kind: 'ACCOUNT', accountId: accountOf(issued + j) },
          authMethod: 'ACCESS_KEY_DIRECT',
        }),
      ),
    );
    for (const [j, c] of batch.entries()) {
      const accountId = accountOf(issued + j);
      const last = changes.at(-1);
      if (PER_CHANGE > 1 && last?.accountId === accountId) last.sids.push(c.sid);
      else changes.push({ accountId, sids: [c.sid] });
    }
    issued += batch.length;
  }
  const sessions = infra.issuance.ports;
  const commitChange = async (c: { accountId: string; sids: string[] }) => {
    if (PER_CHANGE === 1) return revokeFamily(infra.issuance, c.sids[0]!, 'logout');
    const sids = await sessions.sessions.revokeAccountSessions(
      application.id,
      c.accountId,
      'revoke_all',
      new Date(),
    );
    await sessions.sessionEvents.publishSessionChanges(sids);
  };
  console.log(
    `events: ${perRun} sessions issued in ${((now() - issueStart) / 1000).toFixed(1)} s; ${PER_CHANGE === 1 ? 'logouts' : `revoke-alls of ${PER_CHANGE} sessions`} at ${RATE} events/s for ${SECONDS} s per run (${WARMUP_SECONDS} s warm-up), receiver ${receiver.url}`,
  );

  const pending = async () =>
    (
      await infra.db.$queryRawUnsafe<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM event_outbox WHERE status = 'PENDING'`,
      )
    )[0]!.n;

  async function run(count: number): Promise<EventsRun> {
    await infra.db.$executeRawUnsafe(
      `UPDATE sessions SET status = 'ACTIVE', revoked_reason = NULL, revoked_at = NULL WHERE application_id = $1::uuid`,
      application.id,
    );
    receiver.reset();
    const before = await workerFailures();
    // The receiver shares this process with the producer: its event-loop delay says whether it answered at once.
    const loopDelay = monitorEventLoopDelay({ resolution: 10 });
    loopDelay.enable();
    const since = new Date(Date.now() - 1000);
    const commits = new Map<string, number>();
    let producerErrors = 0;
    const inFlight: Promise<void>[] = [];
    let active = 0;
    const start = now();
    let next = 0;
    for (let tick = 0, c = 0; next < count && c < changes.length; tick++) {
      const wait = start + tick * TICK_MS - now();
      // Always a turn of the event loop: a tick behind its schedule with MAX_IN_FLIGHT changes out must let them end.
      await new Promise((r) => setTimeout(r, Math.max(0, wait)));
      const due = Math.min(count, Math.round(((tick + 1) * TICK_MS * RATE) / 1000));
      // Changes the database has not taken yet wait here, not in the pool's queue (whose wait is bounded): on a
      // machine that commits fewer than RATE, the committed rate falls short instead of changes failing.
      for (; next < due && c < changes.length && active < MAX_IN_FLIGHT; c++) {
        const change = changes[c]!;
        next += change.sids.length;
        active++;
        inFlight.push(
          commitChange(change)
            .finally(() => active--)
            .then(
              () => {
                const at = now();
                for (const sid of change.sids) commits.set(sid, at);
              },
              (err: unknown) => {
                if (producerErrors++ === 0) console.error(`  a change failed: ${(err as Error).message}`);
              },
            ),
        );
      }
    }
    await Promise.all(inFlight);
    const lastCommit = now();
    const depthAtLastCommit = await pending();
    const firstCommit = Math.min(...commits.values());
    // Every event arrived, and its outcome recorded (a batch's outcomes are written after its last push).
    const pendingHere = async () =>
      (
        await infra.db.$queryRawUnsafe<{ n: number }[]>(
          `SELECT count(*)::int AS n FROM event_outbox
            WHERE application_id = $1::uuid AND created_at >= $2 AND status = 'PENDING'`,
          application.id,
          since,
        )
      )[0]!.n;
    while (
      (receiver.arrivals.size < commits.size || (await pendingHere()) > 0) &&
      now() - lastCommit < DRAIN_LIMIT_MS
    )
      await new Promise((r) => setTimeout(r, 50));
    loopDelay.disable();
    const after = await workerFailures();
    const workerCpuMsPerEvent = ((after.get('cpu')! - before.get('cpu')!) * 1000) / commits.size;
    after.delete('cpu');
    const failureReasons = Object.fromEntries(
      [...after].flatMap(([k, v]) => (v > (before.get(k) ?? 0) ? [[k, v - (before.get(k) ?? 0)]] : [])),
    );

    const arrivalTimes = [...receiver.arrivals.values()].sort((a, b) => a - b);
    const arrivalLatency = [...receiver.arrivals]
      .flatMap(([sid, at]) => (commits.has(sid) ? [at - commits.get(sid)!] : []))
      .sort((a, b) => a - b);
    const rows = await infra.db.$queryRawUnsafe<{ ms: number | null; delivered: boolean }[]>(
      `SELECT extract(epoch FROM first_attempt_at - created_at)::float8 * 1000 AS ms,
          status = 'DELIVERED' AND attempts = 1 AS delivered
        FROM event_outbox WHERE application_id = $1::uuid AND created_at >= $2`,
      application.id,
      since,
    );
    const attemptLatency = rows.flatMap((r) => (r.ms === null ? [] : [r.ms])).sort((a, b) => a - b);
    const figures = (xs: number[]) => ({
      p50: pct(xs, 50),
      p95: pct(xs, 95),
      p99: pct(xs, 99),
      max: pct(xs, 100),
    });
    const span = arrivalTimes.length > 1 ? arrivalTimes.at(-1)! - arrivalTimes[0]! : Number.NaN;
    return {
      produced: commits.size,
      committedPerSec: commits.size / ((lastCommit - firstCommit) / 1000),
      deliveredPerSec: (arrivalTimes.length - 1) / (span / 1000),
      arrived: receiver.arrivals.size,
      missing: commits.size - receiver.arrivals.size,
      repeats: receiver.counts().repeats,
      attempt: figures(attemptLatency),
      arrival: figures(arrivalLatency),
      failures: Object.values(failureReasons).reduce((a: number, n) => a + (n as number), 0),
      failureReasons,
      workerCpuMsPerEvent,
      benchLoopDelayP99Ms: loopDelay.percentile(99) / 1e6,
      undelivered: rows.filter((r) => !r.delivered).length,
      depthAtLastCommit,
      depthAtEnd: await pending(),
      producerErrors,
    };
  }

  const line = (label: string, r: EventsRun) =>
    console.log(
      `${label.padEnd(10)} committed ${r.committedPerSec.toFixed(0)}/s, delivered ${r.deliveredPerSec.toFixed(0)}/s (${r.arrived}/${r.produced}, ${r.repeats} repeated)   commit->first attempt p50 ${r.attempt.p50.toFixed(0)} p95 ${r.attempt.p95.toFixed(0)} p99 ${r.attempt.p99.toFixed(0)} max ${r.attempt.max.toFixed(0)} ms   commit->arrival p95 ${r.arrival.p95.toFixed(0)} ms   failed attempts ${r.failures} ${JSON.stringify(r.failureReasons)} (${r.undelivered} rows not delivered at the first attempt)   outbox depth ${r.depthAtLastCommit} at last commit, ${r.depthAtEnd} at end   worker CPU ${r.workerCpuMsPerEvent.toFixed(2)} ms/event   bench loop delay p99 ${r.benchLoopDelayP99Ms.toFixed(0)} ms${r.producerErrors ? `   ${r.producerErrors} CHANGES FAILED` : ''}`,
    );

  if (WARMUP_SECONDS > 0) line('warm-up', await run(Math.min(perRun, Math.round(RATE * WARMUP_SECONDS))));
  const runs: EventsRun[] = [];
  for (let i = 0; i < RUNS; i++) {
    runs.push(await run(perRun));
    line(`run ${i + 1}`, runs.at(-1)!);
  }
  const m = (f: (r: EventsRun) => number) => median(runs.map(f));
  const summary = {
    rate: RATE,
    seconds: SECONDS,
    committedPerSec: m((r) => r.committedPerSec),
    deliveredPerSec: m((r) => r.deliveredPerSec),
    attemptP50: m((r) => r.attempt.p50),
    attemptP95: m((r) => r.attempt.p95),
    attemptP99: m((r) => r.attempt.p99),
    arrivalP95: m((r) => r.arrival.p95),
    workerCpuMsPerEvent: m((r) => r.workerCpuMsPerEvent),
    failures: runs.reduce((a, r) => a + r.failures, 0),
    missing: runs.reduce((a, r) => a + r.missing, 0),
    depthAtEnd: runs.at(-1)!.depthAtEnd,
    runs,
  };
  const met = summary.deliveredPerSec >= TARGET_PER_SEC && summary.attemptP95 <= TARGET_P95_MS;
  console.log(
    `  => events: ${summary.deliveredPerSec.toFixed(0)} delivered/s (committed ${summary.committedPerSec.toFixed(0)}/s), commit->first attempt p50 ${summary.attemptP50.toFixed(0)} p95 ${summary.attemptP95.toFixed(0)} p99 ${summary.attemptP99.toFixed(0)} ms, ${summary.failures} failed attempts, ${summary.missing} missing, outbox depth ${summary.depthAtEnd} at end, worker CPU ${summary.workerCpuMsPerEvent.toFixed(2)} ms/event (medians of ${RUNS}); target >= ${TARGET_PER_SEC}/s and p95 <= ${TARGET_P95_MS} ms: ${met ? 'met' : 'NOT met'}`,
  );
  return { events: summary };
}
