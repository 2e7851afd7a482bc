// PostgreSQL and Redis as dependencies that can fail: which errors mean "unreachable, stalled or reset" (the one
// place that decides it: such a request is 503 TemporarilyUnavailable, never 500), and a watch that logs one line
// and counts one metric per state change (down, up) instead of one warning per failed request.
import { Counter, Gauge } from 'prom-client';
import type { Logger } from './logger';
import type { Metrics } from './metrics';

/** Error codes of a connection that failed, was reset or refused, or a server that is shutting down or full. */
const DOWN_CODES = new Set([
  // sockets
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  // PostgreSQL: connection exceptions, statement_timeout, shutdown, too many connections
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  '57014',
  '57P01',
  '57P02',
  '57P03',
  '53300',
  // Prisma: can't reach, timed out, server closed the connection, pool timeout, transaction could not start
  'P1001',
  'P1002',
  'P1008',
  'P1017',
  'P2024',
  'P2028',
]);

/** Kinds of Prisma's driver-adapter errors (`DriverAdapterError.cause.kind`) that mean the same. */
const DOWN_KINDS = new Set([
  'DatabaseNotReachable',
  'ConnectionClosed',
  'SocketTimeout',
  'TooManyConnections',
  'TransactionAlreadyClosed',
]);

/**
 * Messages of pg, pg-pool, ioredis and Prisma for the same conditions, where they carry no code (pg-pool's pool ended
 * by a host's shutdown among them; an ioredis Cluster redirected until it gave up, or with no node reachable); and PgBouncer's while its PostgreSQL is gone (SQLSTATE 08P01, protocol_violation,
 * which from PostgreSQL itself would be a bug and stays a 500): a failover behind PgBouncer answered 500
 * (scripts/engines/pg-promotion.test.ts).
 */
const DOWN_MESSAGES =
  /Connection terminated|Query read timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Connection is closed|Command timed out|Stream isn't writeable|max retries per request|connect ECONNREFUSED|Can't reach database|Timed out fetching a new connection|Server has closed the connection|canceling statement due to statement timeout|terminating connection|server login has been failing|pgbouncer cannot connect to server|server conn crashed|query_wait_timeout|Cannot use a pool after calling end|Too many Cluster redirections|Cluster is disconnected|None of startup nodes is available|Failed to refresh slots cache/i;

/**
 * Redis Cluster's replies while slots move or have no master (a failover under way): ioredis follows MOVED and ASK
 * and retries CLUSTERDOWN and TRYAGAIN, and one that still reaches the caller means the Cluster is between
 * masters, not a bug.
 */
const CLUSTER_MOVING = /^(?:(?:MOVED|ASK) \d+ \S+|CLUSTERDOWN\b.*|TRYAGAIN\b.*)$/;

/**
 * A dependency call that answered too late to be used (a write that reached PostgreSQL after its deadline and was
 * therefore not applied): the same 503 as a timeout.
 */
export class DependencyTimeoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DependencyTimeoutError';
  }
}

interface Inspectable {
  name?: unknown;
  code?: unknown;
  kind?: unknown;
  message?: unknown;
  cause?: unknown;
  originalCode?: unknown;
}

/** True for errors that mean PostgreSQL or Redis is unreachable, stalled or reset: the answer is 503, not 500. */
export function isDependencyFailure(err: unknown): boolean {
  let e = err as Inspectable | undefined;
  for (let depth = 0; e && typeof e === 'object' && depth < 6; depth++) {
    if (typeof e.code === 'string' && DOWN_CODES.has(e.code)) return true;
    if (typeof e.originalCode === 'string' && DOWN_CODES.has(e.originalCode)) return true;
    if (typeof e.kind === 'string' && DOWN_KINDS.has(e.kind)) return true;
    if (
      e.name === 'MaxRetriesPerRequestError' ||
      e.name === 'PrismaClientInitializationError' ||
      e.name === 'DependencyTimeoutError' ||
      // A single-use claim too few Redis replicas acknowledged (single-use-claim.ts): not honoured, retried later.
      e.name === 'UnreplicatedClaimError' ||
      // A change whose audit row could not be written (@svc/audit): refused and rolled back, 503.
      e.name === 'AuditUnavailableError' ||
      // @svc/db's client after $disconnect (a request racing its host's shutdown): like ioredis's "Connection is
      // closed", a 503 the client retries on another replica, not a 500.
      e.name === 'ClosedDbError'
    ) {
      return true;
    }
    if (typeof e.message === 'string' && DOWN_MESSAGES.test(e.message)) return true;
    if (e.name === 'ReplyError' && typeof e.message === 'string' && CLUSTER_MOVING.test(e.message))
      return true;
    e = e.cause as Inspectable | undefined;
  }
  return false;
}

/** A short, secret-free description of a dependency error for a log line (no stack). */
export function describeDependencyError(err: unknown): string {
  const e = err as Inspectable | undefined;
  const code = typeof e?.code === 'string' ? e.code : undefined;
  const message = typeof e?.message === 'string' ? e.message.split('\n')[0]!.slice(0, 200) : String(err);
  return code ? `${code}: ${message}` : message;
}

export type DependencyState = 'connecting' | 'up' | 'down';

export interface DependencyWatch {
  /**
   * Probes every dependency (each within the probe timeout) in a round that starts no earlier than this call;
   * resolves true when all answered, false once closed. Calls made while a round runs share the one round after it:
   * a round already running may hold a PONG sent just before an outage, which is no answer to a later question.
   */
  check(): Promise<boolean>;
  /** A request just failed on a dependency: probe soon (at most once per interval) to learn which and log it. */
  suspect(): void;
  /** The last known state of each dependency (`connecting` until it first answers, within the start-up grace). */
  states(): Record<string, DependencyState>;
  /**
   * Stops probing for good: no recheck, suspicion or check probes again, and a probe still running changes no state
   * and counts as failed at once (its timeout timer cleared). Called before the connections it probes are closed, so
   * nothing of it outlives them.
   */
  close(): void;
}

export interface DependencyWatchOptions {
  logger: Logger;
  metrics?: Metrics;
  /** One probe per dependency (`postgres`: SELECT 1, `redis`: PING). */
  probes: Record<string, () => Promise<unknown>>;
  /** A probe that has not answered after this is a failure (default 1200: /readyz answers within 2 s). */
  probeTimeoutMs?: number;
  /** While something is down, probe this often until it is back (default 1000). */
  recheckMs?: number;
  /**
   * How long after the watch is made a dependency that has never answered is still being connected to, not down
   * (default 10000): a first PostgreSQL connection takes over a second while a whole fleet starts on two cores,
   * which is no outage to warn about. Past it, a dependency that still does not answer is down, and logged so.
   */
  connectGraceMs?: number;
}

const counters = new WeakMap<Metrics, { changes: Counter<string>; up: Gauge<string> }>();

function dependencyMetrics(metrics: Metrics) {
  let m = counters.get(metrics);
  if (!m) {
    m = {
      changes: new Counter({
        name: 'dependency_state_changes_total',
        help: 'PostgreSQL and Redis going down or coming back, as seen by this process',
        labelNames: ['dependency', 'state'],
        registers: [metrics.registry],
      }),
      up: new Gauge({
        name: 'dependency_up',
        help: '1 while the dependency answers, 0 while it is down',
        labelNames: ['dependency'],
        registers: [metrics.registry],
      }),
    };
    counters.set(metrics, m);
  }
  return m;
}

/**
 * Watches dependencies without touching the request path: it probes only when asked (readiness, a failed
 * request, a connection error event) and, while something is down, on a timer until it is back.
 */
export function createDependencyWatch(opts: DependencyWatchOptions): DependencyWatch {
  const probeTimeoutMs = opts.probeTimeoutMs ?? 1200;
  const recheckMs = opts.recheckMs ?? 1000;
  const connectGraceMs = opts.connectGraceMs ?? 10_000;
  const names = Object.keys(opts.probes);
  const state: Record<string, DependencyState> = Object.fromEntries(
    names.map((n) => [n, 'connecting' as const]),
  );
  const madeAt = performance.now();
  // Every time here is a duration of this process's own probing (how long a dependency was down for the log, the
  // least interval between suspicions), paced by real timers like the recheck's: the monotonic clock, not the
  // host's Clock, which a test may stop or move without any timer following it.
  const downSince: Record<string, number> = {};
  const metrics = opts.metrics ? dependencyMetrics(opts.metrics) : undefined;
  for (const n of names) metrics?.up.set({ dependency: n }, 1);
  /** The round of probes in flight, and the one every check() made since it started waits for. */
  let running: Promise<boolean> | undefined;
  let next: Promise<boolean> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let lastSuspect = Number.NEGATIVE_INFINITY;
  let closed = false;
  /** Ends each probe still running as failed, with its timer: close() leaves no timer of the watch set. */
  const unanswered = new Set<() => void>();

  /** Runs one probe: true when it answers within the probe timeout. */
  const probe = (run: () => Promise<unknown>): Promise<boolean> =>
    new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const settle = (answered: boolean) => {
        clearTimeout(timer);
        unanswered.delete(fail);
        resolve(answered);
      };
      const fail = () => settle(false);
      timer = setTimeout(fail, probeTimeoutMs);
      unanswered.add(fail);
      run().then(
        () => settle(true),
        () => settle(false),
      );
    });

  const set = (name: string, answered: boolean) => {
    // A probe that failed because its connection was closed under it is the shutdown, not an outage to log.
    if (closed) return;
    const next = answered ? 'up' : 'down';
    if (state[name] === next) return;
    if (state[name] === 'connecting') {
      if (answered) {
        state[name] = 'up';
        // No `state`: the up and down lines are the state changes (one each per outage).
        opts.logger.debug({ dependency: name }, `${name} connected`);
        return;
      }
      if (performance.now() - madeAt < connectGraceMs) {
        opts.logger.debug({ dependency: name }, `${name} not answering yet`);
        return;
      }
    }
    state[name] = next;
    metrics?.changes.inc({ dependency: name, state: next });
    metrics?.up.set({ dependency: name }, next === 'up' ? 1 : 0);
    if (next === 'down') {
      downSince[name] = performance.now();
      opts.logger.warn({ dependency: name, state: 'down' }, `${name} is down`);
    } else {
      const downForMs = Math.round(performance.now() - (downSince[name] ?? performance.now()));
      opts.logger.info({ dependency: name, state: 'up', downForMs }, `${name} is up again`);
    }
  };

  const schedule = () => {
    if (closed || timer || names.every((n) => state[n] === 'up')) return;
    timer = setTimeout(() => {
      timer = undefined;
      void check();
    }, recheckMs);
    timer.unref();
  };

  const round = (): Promise<boolean> => {
    // After close() the probes' connections are closing or closed: probing them would reconnect or fail.
    if (closed) return Promise.resolve(false);
    const probing = (async () => {
      const results = await Promise.all(names.map((n) => probe(opts.probes[n]!)));
      for (const [i, n] of names.entries()) set(n, Boolean(results[i]));
      running = undefined;
      schedule();
      return !closed && results.every(Boolean);
    })();
    running = probing;
    return probing;
  };

  const check = (): Promise<boolean> => {
    if (closed) return Promise.resolve(false);
    if (!running) return round();
    // The round in flight started before this call: its PONG may have left Redis just before a cut, and /readyz
    // would say ready on it (1 run in 7 of the device host's Redis cut). The next round starts when it ends (one
    // round in flight at a time, however many probes Kubernetes and the load balancers send) and answers every
    // check made meanwhile (or a round another call started in between, as late as that).
    next ??= running.then(() => {
      next = undefined;
      return running ?? round();
    });
    return next;
  };

  return {
    check,
    suspect() {
      const now = performance.now();
      // A suspicion during a round is answered by the round after it, which a check may have asked for already.
      if (closed || next || now - lastSuspect < recheckMs) return;
      lastSuspect = now;
      void check();
    },
    states: () => ({ ...state }),
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      for (const fail of [...unanswered]) fail();
    },
  };
}
