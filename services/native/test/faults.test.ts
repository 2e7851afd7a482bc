// Dependency faults under direct-issue load (access keys and public keys at once): PostgreSQL and Redis stalled
// (connections held open, nothing forwarded) and stopped (connections reset, new ones refused) through a TCP
// proxy. Every request ends within its bound with 200 or 503 TemporarilyUnavailable and Retry-After (never 500),
// /readyz says 503 within 2 s, the host recovers without a restart, and the outage is logged once per change.
import {
  dependencyBoundMs,
  expectOneDownOneUp,
  FAULT_SLACK_MS,
  type Load,
  loadAnswer,
  postJson,
  provisionApp,
  type RunningTestHost,
  runContainedFault,
  startLoad,
  stateChanges,
  testEnv,
  useFaultSuite,
} from '@svc/testkit';
import { nativeConfigFromEnv } from '../src/config';
import { accessKeyFor, publicKeyFor, settledAccount, signAssertion, startNative } from './helpers';

const WORKERS = 12;
const config = nativeConfigFromEnv(testEnv());
/** The longest a direct issue may take: its rate-limit command, a connection and its two statements. */
const BOUND_MS = dependencyBoundMs(config, { redisCommands: 1, statements: 2 });
const { figures, log, metrics, infra, proxied } = useFaultSuite('native');
let host: RunningTestHost;

beforeAll(async () => {
  // Limits high enough that the load never meets them: this suite is about dependencies, not rate limits.
  host = await startNative(
    proxied.infra,
    {
      rateLimit: {
        prefix: `faults-${Date.now()}`,
        addressPoints: 1e6,
        credentialPoints: 1e6,
        windowSeconds: 60,
      },
    },
    { logger: log.logger, metrics },
  );
});

afterAll(async () => {
  await host.close();
  await proxied.close();
});

/** Half the workers issue with an access key, half with a public-key assertion, each with its own credential. */
async function issueUnderLoad(): Promise<Load> {
  const app = await provisionApp(infra, { methods: ['ACCESS_KEY_DIRECT', 'PUBLIC_KEY_DIRECT'] });
  const attempts: ((
    w: number,
  ) => Promise<{ status: number; reason?: string; retryAfter?: string | null }>)[] = [];
  for (let i = 0; i < WORKERS; i++) {
    const account = await settledAccount(infra);
    if (i % 2 === 0) {
      const key = await accessKeyFor(infra, app.anchor, account.id);
      const body = {
        applicationAnchor: app.anchor,
        accessKeyIdentifier: key.accessKeyIdentifier,
        accessKeySecret: key.accessKeySecret,
      };
      attempts.push(async () => loadAnswer(await postJson(`${host.url}/direct-issue/access-key`, body)));
    } else {
      const cred = await publicKeyFor(infra, app.anchor, account.id);
      const body = JSON.stringify({ applicationAnchor: app.anchor });
      attempts.push(async () => {
        const jws = await signAssertion(cred.key, cred.kid, body);
        return loadAnswer(
          await postJson(`${host.url}/direct-issue/public-key`, body, { authorization: `PublicKey ${jws}` }),
        );
      });
    }
  }
  return startLoad(WORKERS, (w) => attempts[w]!(w), { backoffMs: 100 });
}

describe.each([
  ['PostgreSQL', 'postgres', () => proxied.proxies().pg],
  ['Redis', 'redis', () => proxied.proxies().redis],
] as const)('direct issue when %s fails', (_name, dependency, proxy) => {
  it.each(['stall', 'cut'] as const)(
    '%s: 200 or a prompt 503 with Retry-After, /readyz 503, recovery',
    async (fault) => {
      const load = await issueUnderLoad();
      const from = log.lines.length;
      const before = await stateChanges(metrics, dependency);
      figures.push(
        await runContainedFault({
          scenario: `native direct issue, ${dependency} ${fault}`,
          proxy: proxy(),
          fault,
          hostUrl: host.url,
          load,
          workers: WORKERS,
          requestsNeedIt: true,
          boundMs: BOUND_MS + FAULT_SLACK_MS,
          retryAfter: /^[1-9]\d*$/,
        }),
      );
      await expectOneDownOneUp(log, from, dependency, metrics, before);
    },
    120_000,
  );
});
