// Every issuing host, started as its own process: /readyz stays 503 while its signing keys cannot be loaded (a
// KEY_ENCRYPTION_KEY that opens none of them), though PostgreSQL and Redis answer and /healthz is 200.
import { provisionApp, useInfra, waitUntil } from '@svc/testkit';
import { type Child, freePort, spawnTsx } from './processes';

const HOSTS = ['connect', 'native', 'session'] as const;
const WRONG_KEK = Buffer.alloc(32, 9).toString('base64');

const infra = useInfra();
const children: Child[] = [];
const urls: Record<string, string> = {};

beforeAll(async () => {
  await provisionApp(infra); // at least one ACTIVE signing key, sealed under the tests' KEK
  await Promise.all(
    HOSTS.map(async (host) => {
      const port = await freePort();
      urls[host] = `http://127.0.0.1:${port}`;
      children.push(
        spawnTsx(`services/${host}/src/main.ts`, {
          PORT: String(port),
          BIND_HOST: '127.0.0.1',
          KEY_ENCRYPTION_KEY: WRONG_KEK,
          LOG_LEVEL: 'silent',
        }),
      );
    }),
  );
  for (const host of HOSTS) {
    await waitUntil(async () => (await fetch(`${urls[host]}/healthz`)).ok, 90_000, 200);
  }
}, 120_000);

afterAll(async () => {
  await Promise.all(children.map((c) => c.kill('SIGTERM')));
});

test.each(HOSTS)('%s: /readyz is 503 while its signing keys cannot be loaded', async (host) => {
  const res = await fetch(`${urls[host]}/readyz`);
  expect([res.status, await res.json()]).toEqual([503, { status: 'not_ready' }]);
});
