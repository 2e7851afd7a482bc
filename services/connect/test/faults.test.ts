// Dependency faults under /establish load: PostgreSQL, then Redis, stalled (connections held open, nothing
// forwarded) and stopped (connections reset, new ones refused) through a TCP proxy. Each request carries a
// client-auth JWT signed fresh (its key read from PostgreSQL, its jti claimed once in Redis, then the application
// read and the inquiry inserted), so every request needs both. Every request ends within its bound with 200 or a
// prompt 503 with Retry-After (never another 5xx), /readyz says 503 within 2 s, the host recovers without a
// restart, and the outage is logged once per change with no stack.
import {
  type Backend,
  dependencyBoundMs,
  eachDependencyFault,
  FAULT_SLACK_MS,
  type Load,
  loadAnswer,
  provisionBackend,
  runContainedFault,
  startLoad,
  testEnv,
  useFaultSuite,
  waitUntil,
} from '@svc/testkit';
import { connectConfigFromEnv } from '../src/config';
import { type ConnectHost, startConnect } from './helpers';

const WORKERS = 8;
const config = connectConfigFromEnv(
  testEnv({
    CONNECT_URL: 'http://127.0.0.1',
    WEBAUTHN_RP_NAME: 'Sign-in service (test)',
    MAIL_FROM: 'Sign-in test <no-reply@localhost>',
    SMTP_URL: 'smtp://127.0.0.1:2525',
  }),
);
/**
 * The longest an /establish may take: a connection and the client key's read, the jti's Redis command, then the
 * application's read and the inquiry's insert (the test host caches no application).
 */
const BOUND_MS = dependencyBoundMs(config, { redisCommands: 1, statements: 3 });
const { figures, log, metrics, infra, proxied } = useFaultSuite('connect');
let host: ConnectHost;

beforeAll(async () => {
  host = await startConnect(proxied.infra, { logger: log.logger, metrics });
  // Ready once: each dependency has answered a probe, so a fault is a change the watch logs (until then it is
  // still connecting, and a failure within the start-up grace is not called down).
  await waitUntil(async () => (await fetch(`${host.url}/readyz`)).status === 200, 30_000);
});

afterAll(async () => {
  await host.close();
  await proxied.close();
});

/** Each worker establishes inquiries for its own application, every request signed anew (a replay is a 401). */
async function establishUnderLoad(): Promise<Load> {
  const backends: Backend[] = [];
  for (let w = 0; w < WORKERS; w++) backends.push(await provisionBackend(infra, host.url));
  return startLoad(
    WORKERS,
    async (w) => loadAnswer(await backends[w]!.establish({ returnMethods: [{ type: 'STATUS_POLL' }] })),
    { backoffMs: 100 },
  );
}

eachDependencyFault(
  'connect /establish',
  '200 or a prompt 503 with Retry-After, /readyz 503, recovery',
  { proxies: proxied.proxies, log, metrics },
  async ({ dependency, proxy, fault }) => {
    const load = await establishUnderLoad();
    figures.push(
      await runContainedFault({
        scenario: `connect /establish, ${dependency} ${fault}`,
        proxy,
        fault,
        hostUrl: host.url,
        load,
        workers: WORKERS,
        requestsNeedIt: true,
        boundMs: BOUND_MS + FAULT_SLACK_MS,
        retryAfter: /^1$/,
      }),
    );
  },
);
