// Dependency faults on the OIDC host: PostgreSQL, then Redis, stalled (connections held open, nothing forwarded)
// and stopped (connections reset, new ones refused) through a TCP proxy. /readyz says 503 within 2 s whatever the
// dependency does, says ready again without a restart once it answers, and the outage is logged once per change
// with no stack.
import { ensureActiveKey, OIDC_SCOPE } from '@svc/keyring';
import { createMetrics, systemClock } from '@svc/platform';
import { createOidcClient } from '@svc/provisioning';
import {
  captureLogger,
  type DependencyProxies,
  eachDependencyFault,
  expectReadyzFault,
  provisionApp,
  proxyDependencies,
  type ReadyzFigures,
  type RunningTestHost,
  recordFaultFigures,
  startTestHost,
  testEnv,
  testUrls,
  uniqueName,
  useInfra,
  waitUntil,
} from '@svc/testkit';
import { createOidcApp } from '../src/app';
import { oidcConfigFromEnv } from '../src/config';
import { type OpenedOidcDeps, openOidcDeps } from '../src/deps';

const figures = recordFaultFigures<ReadyzFigures>('oidc');
const log = captureLogger('oidc');
const metrics = createMetrics('oidc');
const infra = useInfra();
let proxies: DependencyProxies;
let deps: OpenedOidcDeps;
let host: RunningTestHost;

beforeAll(async () => {
  // Ready needs an active OIDC signing key.
  await ensureActiveKey(infra.db, infra.issuance.kek, OIDC_SCOPE, new Date());
  proxies = await proxyDependencies();
  deps = openOidcDeps(
    oidcConfigFromEnv(
      testEnv({
        DATABASE_URL: proxies.pg.urlFor(testUrls.database),
        REDIS_URL: proxies.redis.urlFor(testUrls.redis),
        RATE_LIMIT_NAMESPACE: uniqueName('oidc-faults'),
      }),
    ),
    systemClock,
  );
  // The app reports to this file's logger and metrics (its dependency watch is made with it).
  host = await startTestHost(createOidcApp({ ...deps, logger: log.logger, metrics }));
  // Ready once: each dependency has answered a probe, so a fault is a change the watch logs (until then it is
  // still connecting, and a failure within the start-up grace is not called down).
  await waitUntil(async () => (await fetch(`${host.url}/readyz`)).status === 200, 30_000);
});

afterAll(async () => {
  await host.close();
  await deps.close();
  await proxies.close();
});

eachDependencyFault(
  'oidc /readyz',
  '503 within 2 s, ready again after, one down and one up line',
  { proxies: () => proxies, log, metrics },
  async ({ dependency, proxy, fault }) => {
    figures.push(
      await expectReadyzFault({
        scenario: `oidc /readyz, ${dependency} ${fault}`,
        proxy,
        fault,
        hostUrl: host.url,
      }),
    );
  },
);

describe('an OAuth client during an outage', () => {
  it('PostgreSQL cut: /token and /revoke answer OAuth temporarily_unavailable (503, Retry-After), never the fleet body', async () => {
    // A client never presented before, so its record must be read from PostgreSQL (no cache can answer).
    const app = await provisionApp(infra, { methods: ['OIDC'] });
    const made = await createOidcClient(infra.provisioning, {
      anchor: app.anchor,
      redirectUris: [`https://rp-${uniqueName('o')}.example/cb`],
      authMethod: 'client_secret_basic',
    });
    const secret = 'clientSecret' in made ? (made.clientSecret as string) : '';
    const basic = `Basic ${Buffer.from(`${made.clientId}:${secret}`).toString('base64')}`;
    const post = (path: string, form: Record<string, string>) =>
      fetch(`${host.url}${path}`, {
        method: 'POST',
        headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form),
      });
    await proxies.pg.cut();
    try {
      for (const [path, form] of [
        ['/token', { grant_type: 'refresh_token', refresh_token: 'x' }],
        ['/revoke', { token: 'x' }],
      ] as const) {
        const res = await post(path, form);
        expect({ path, status: res.status, body: await res.json() }).toMatchObject({
          path,
          status: 503,
          body: { error: 'temporarily_unavailable' },
        });
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      }
    } finally {
      await proxies.pg.pass();
    }
    await waitUntil(async () => (await fetch(`${host.url}/readyz`)).status === 200, 30_000);
    // Once PostgreSQL answers, the same client authenticates: the refresh token is simply invalid.
    const after = await post('/token', { grant_type: 'refresh_token', refresh_token: 'x' });
    expect(after.status).toBe(400);
    expect((await after.json()).error).toBe('invalid_grant');
  });
});
