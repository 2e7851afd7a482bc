// Dependency faults under device load: half the workers start authorizations (/device-authorize: a rate-limit
// command, the application read and the insert, the polling state's seed), half poll a pending one (/device-token:
// one Redis script, no PostgreSQL), while PostgreSQL, then Redis, is stalled (connections held open, nothing
// forwarded) and stopped (connections reset, new ones refused) through a TCP proxy. Every request ends within its
// bound with its answer or a prompt 503 with Retry-After (never 500), polls go on while only PostgreSQL is down,
// /readyz says 503 within 2 s, the host recovers without a restart, and the outage is logged once per change.
import { createMetrics } from '@svc/platform';
import {
  captureLogger,
  type DependencyProxies,
  dependencyBoundMs,
  eachDependencyFault,
  type Load,
  proxyDependencies,
  recordFaultFigures,
  runContainedFault,
  startLoad,
  testEnv,
  testUrls,
  useStarted,
  waitUntil,
} from '@svc/testkit';
import { deviceConfigFromEnv } from '../src/config';
import { authorize, type DeviceHarness, pollOutcome, provisionDeviceApp, startDevice } from './support';

const WORKERS = 8;
/** Workers 0-3 start authorizations; 4-7 poll. */
const polls = (w: number) => w >= WORKERS / 2;
const config = deviceConfigFromEnv(testEnv());
/**
 * The longest a /device-authorize may take: its rate-limit command, then a connection and two statements (the
 * application, the insert; the seed runs beside the insert). A poll is one or two Redis commands, well within it.
 */
const BOUND_MS = dependencyBoundMs(config, { redisCommands: 1, statements: 2 });
/**
 * The request's own work beyond its dependency calls. Time the test process was held up by a loaded machine is not
 * in it: runContainedFault takes that off each request first.
 */
const SLACK_MS = 1000;
/** The polling interval the load runs at: the clock moves by it before every poll, so no poll is too fast. */
const INTERVAL_S = 1;

const log = captureLogger('device');
const metrics = createMetrics('device');
const figures = recordFaultFigures('device');
let proxies: DependencyProxies;
/** One host, reaching PostgreSQL and Redis through the proxies, reporting to this file's log and metrics. */
const h: DeviceHarness = useStarted(async () => {
  proxies = await proxyDependencies();
  const device = await startDevice(
    {
      pollIntervalSeconds: INTERVAL_S,
      // The clock moves a second a poll: the authorizations must outlive every poll of the file.
      codeTtlSeconds: 30 * 86_400,
      rateLimit: { authorizePerAddress: 1e6, unknownPerAddress: 1e6 },
    },
    undefined,
    {
      redisUrl: proxies.redis.urlFor(testUrls.redis),
      databaseUrl: proxies.pg.urlFor(testUrls.database),
      logger: log.logger,
      metrics,
    },
  );
  // Ready once: each dependency has answered a probe, so a fault is a change the watch logs (until then it is
  // still connecting, and a failure within the start-up grace is not called down).
  await waitUntil(async () => (await fetch(`${device.url}/readyz`)).status === 200, 30_000);
  return {
    ...device,
    async close() {
      await device.close();
      await proxies.close();
    },
  };
});

/**
 * The load: authorizations, and polls counted as pollOutcome (support.ts) says.
 */
async function deviceLoad(): Promise<Load> {
  h.clock.set(Date.now());
  const app = await provisionDeviceApp(h.infra);
  const codes: string[] = [];
  for (let w = 0; w < WORKERS; w++) {
    const started = await authorize(h, app.anchor);
    if (started.status !== 200) throw new Error(`/device-authorize answered ${started.status}`);
    codes.push(started.body.deviceCode as string);
  }
  return startLoad(
    WORKERS,
    async (w) => {
      if (!polls(w)) {
        const res = await authorize(h, app.anchor);
        return { status: res.status, reason: res.body?.reason, retryAfter: res.headers.get('retry-after') };
      }
      h.clock.advance(INTERVAL_S * 1000);
      return pollOutcome(h, codes[w] as string);
    },
    { backoffMs: 100 },
  );
}

eachDependencyFault(
  'device authorize and poll',
  'answers or a prompt 503 with Retry-After, /readyz 503, recovery',
  { proxies: () => proxies, log, metrics },
  async ({ dependency, proxy, fault }) => {
    const load = await deviceLoad();
    figures.push(
      await runContainedFault({
        scenario: `device authorize and poll, ${dependency} ${fault}`,
        proxy,
        fault,
        hostUrl: h.url,
        load,
        workers: WORKERS,
        // While only PostgreSQL is down, the polls go on: a pending poll is one Redis script.
        requestsNeedIt: dependency === 'redis' ? true : (w) => !polls(w),
        boundMs: BOUND_MS + SLACK_MS,
        retryAfter: /^1$/,
      }),
    );
  },
);
