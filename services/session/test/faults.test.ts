// Dependency faults under refresh load: PostgreSQL and Redis stalled (connections held open, nothing forwarded) and
// stopped (connections reset, new ones refused) through a TCP proxy. Every request ends within its bound with 200
// or 503 TemporarilyUnavailable and Retry-After, /readyz says 503 within 2 s, the host recovers without a restart,
// no refresh chain forks or is lost, and the outage is logged as one line per state change.
import {
  captureLogger,
  type DependencyProxies,
  dependencyBoundMs,
  expectOneDownOneUp,
  type Load,
  provisionApp,
  proxyDependencies,
  recordFaultFigures,
  runContainedFault,
  startLoad,
  stateChanges,
  testEnv,
  testUrls,
} from '@svc/testkit';
import { sessionConfigFromEnv } from '../src/config';
import { type RefreshChains, refreshChains } from './chains';
import { accountRefreshTokens, type SessionHarness, startSessionHost } from './support';

const WORKERS = 12;
const config = sessionConfigFromEnv(testEnv());
/** The longest a refresh may take: a connection, then its two statements, each within their bound. */
const BOUND_MS = dependencyBoundMs(config, { redisCommands: 0, statements: 2 });
/**
 * The request's own work beyond its dependency calls (routing, signing, the client's connection). Time the test
 * process was held up by a loaded machine is not in it: runContainedFault takes that off each request first.
 */
const SLACK_MS = 1000;

const figures = recordFaultFigures('session');
const log = captureLogger('session');
let proxies: DependencyProxies;
let h: SessionHarness;

beforeAll(async () => {
  proxies = await proxyDependencies();
  // The host reaches PostgreSQL and Redis through the proxies.
  h = await startSessionHost(
    { DATABASE_URL: proxies.pg.urlFor(testUrls.database), REDIS_URL: proxies.redis.urlFor(testUrls.redis) },
    { logger: log.logger },
  );
});

afterAll(async () => {
  await h.close();
  await proxies.close();
});

async function chainsUnderLoad(): Promise<{ chains: RefreshChains; load: Load }> {
  const app = await provisionApp(h.infra);
  const chains = refreshChains(await accountRefreshTokens(h.infra, app.anchor, WORKERS));
  const load = startLoad(WORKERS, (w) => chains.refresh(w, h.url), { backoffMs: 100 });
  return { chains, load };
}

describe.each([
  ['PostgreSQL', 'postgres', () => proxies.pg, true],
  ['Redis', 'redis', () => proxies.redis, false],
] as const)('session /refresh when %s fails', (_name, dependency, proxy, refreshNeedsIt) => {
  it.each(['stall', 'cut'] as const)(
    '%s: 200 or a prompt 503, /readyz 503, recovery, no chain forked or lost',
    async (fault) => {
      const { chains, load } = await chainsUnderLoad();
      const from = log.lines.length;
      const before = await stateChanges(h.deps.metrics, dependency);
      figures.push(
        await runContainedFault({
          scenario: `session /refresh, ${dependency} ${fault}`,
          proxy: proxy(),
          fault,
          hostUrl: h.url,
          load,
          workers: WORKERS,
          requestsNeedIt: refreshNeedsIt,
          boundMs: BOUND_MS + SLACK_MS,
          retryAfter: /^1$/,
        }),
      );
      await chains.expectIntact(h.infra, h.url);
      await expectOneDownOneUp(log, from, dependency, h.deps.metrics, before);
    },
    120_000,
  );
});
