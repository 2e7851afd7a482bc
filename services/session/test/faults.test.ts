// Dependency faults under refresh load: PostgreSQL and Redis stalled (connections held open, nothing forwarded) and
// stopped (connections reset, new ones refused) through a TCP proxy. Every request ends within its bound with 200
// or 503 TemporarilyUnavailable and Retry-After, /readyz says 503 within 2 s, the host recovers without a restart,
// no refresh chain forks or is lost, and the outage is logged as one line per state change.
import { STATEMENT_MARGIN_MS } from '@svc/db';
import { systemClock } from '@svc/platform';
import {
  type CapturedLog,
  captureLogger,
  type FaultFigures,
  type FaultProxy,
  type Load,
  openInfra,
  provisionAccount,
  provisionApp,
  runFault,
  startFaultProxy,
  startLoad,
  startTestHost,
  testEnv,
  testUrls,
} from '@svc/testkit';
import { createSessionApp } from '../src/app';
import { sessionConfigFromEnv } from '../src/config';
import { openSessionDeps } from '../src/deps';
import { type RefreshChains, refreshChains } from './chains';
import { issueFor, type SessionHarness } from './support';

const WORKERS = 12;
const db = sessionConfigFromEnv(testEnv()).db;
/** The longest a refresh may take: a connection, then its two statements, each within their bound. */
const BOUND_MS = db.connectTimeoutMs + 2 * (db.statementTimeoutMs + STATEMENT_MARGIN_MS);
/** What "a little" beyond the bound may be on a loaded 2-core CI machine. */
const SLACK_MS = 1000;

let pg: FaultProxy;
let redis: FaultProxy;
let h: SessionHarness;
let log: CapturedLog;
const figures: FaultFigures[] = [];

beforeAll(async () => {
  pg = await startFaultProxy(hostPort(testUrls.database, 5432));
  redis = await startFaultProxy(hostPort(testUrls.redis, 6379));
  // The host reaches PostgreSQL and Redis through the proxies.
  const deps = openSessionDeps(
    sessionConfigFromEnv(
      testEnv({ DATABASE_URL: pg.urlFor(testUrls.database), REDIS_URL: redis.urlFor(testUrls.redis) }),
    ),
    systemClock,
  );
  log = captureLogger('session');
  deps.logger = log.logger;
  const host = await startTestHost(createSessionApp(deps));
  const infra = openInfra();
  h = {
    infra,
    deps,
    url: host.url,
    async close() {
      await host.close();
      await deps.close();
      await infra.close();
    },
  };
});

afterAll(async () => {
  await h.close();
  await pg.close();
  await redis.close();
  // The figures RELIABILITY.md records.
  process.stdout.write(`${JSON.stringify({ host: 'session', figures })}\n`);
});

function hostPort(url: string, fallback: number) {
  const u = new URL(url);
  return { host: u.hostname, port: Number(u.port || fallback) };
}

async function chainsUnderLoad(): Promise<{ chains: RefreshChains; load: Load }> {
  const app = await provisionApp(h.infra);
  const first: string[] = [];
  for (let i = 0; i < WORKERS; i++) {
    const account = await provisionAccount(h.infra);
    first.push(
      (await issueFor(h.infra, app.anchor, { kind: 'ACCOUNT', accountId: account.id })).refreshToken,
    );
  }
  const chains = refreshChains(first);
  const load = startLoad(WORKERS, (w) => chains.refresh(w, h.url), { backoffMs: 100 });
  return { chains, load };
}

function expectOnly200And503(load: Load) {
  for (const o of load.outcomes) {
    expect([200, 503]).toContain(o.status);
    if (o.status === 503)
      expect({ reason: o.reason, retryAfter: o.retryAfter }).toEqual({
        reason: 'TemporarilyUnavailable',
        retryAfter: '1',
      });
    expect(o.ms).toBeLessThanOrEqual(BOUND_MS + SLACK_MS);
  }
}

/** The state-change lines about `dependency` logged since line `from`: exactly one down, then one up. */
function expectOneDownOneUp(from: number, dependency: string) {
  const changes = log.lines.slice(from).filter((l) => l.dependency === dependency && l.state);
  expect(changes.map((l) => [l.state, l.level])).toEqual([
    ['down', 40],
    ['up', 30],
  ]);
  // Per-request 503s are debug lines without a stack; nothing else is logged at warn or above.
  for (const l of log.lines.slice(from)) {
    expect(JSON.stringify(l)).not.toMatch(/"stack"|\n\s+at /);
    if ((l.level as number) >= 40) expect(l.state).toBe('down');
  }
}

describe.each([
  ['PostgreSQL', 'postgres', () => pg, true],
  ['Redis', 'redis', () => redis, false],
] as const)('session /refresh when %s fails', (_name, dependency, proxy, refreshNeedsIt) => {
  it.each(['stall', 'cut'] as const)(
    '%s: 200 or a prompt 503, /readyz 503, recovery, no chain forked or lost',
    async (fault) => {
      const { chains, load } = await chainsUnderLoad();
      const from = log.lines.length;
      const changesBefore = await stateChanges(dependency);
      let result: FaultFigures;
      try {
        result = await runFault({
          scenario: `session /refresh, ${dependency} ${fault}`,
          proxy: proxy(),
          fault,
          hostUrl: h.url,
          load,
          workers: WORKERS,
          requestsNeedIt: refreshNeedsIt,
        });
      } finally {
        await load.stop();
      }
      figures.push(result);
      expect(result.other5xx).toBe(0);
      expect(result.readyzMs).toBeLessThan(2000);
      expectOnly200And503(load);
      await chains.expectIntact(h.infra, h.url);
      expectOneDownOneUp(from, dependency);
      expect(await stateChanges(dependency)).toEqual({
        down: changesBefore.down + 1,
        up: changesBefore.up + 1,
      });
    },
    120_000,
  );
});

/** dependency_state_changes_total for one dependency, by state. */
async function stateChanges(dependency: string): Promise<{ down: number; up: number }> {
  const metric = await h.deps.metrics.registry.getSingleMetric('dependency_state_changes_total')?.get();
  const count = (state: string) =>
    metric?.values.find((v) => v.labels.dependency === dependency && v.labels.state === state)?.value ?? 0;
  return { down: count('down'), up: count('up') };
}
