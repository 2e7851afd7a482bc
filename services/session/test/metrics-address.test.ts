// Where a host's Prometheus metrics listen (METRICS_BIND_HOST): on loopback by default, so another machine cannot
// read them; on a configured address (Kubernetes: 0.0.0.0, behind a NetworkPolicy) they answer at the pod's own
// address, which is where Prometheus scrapes. Checked on this machine's first non-loopback address.
import { createServer } from 'node:net';
import { networkInterfaces } from 'node:os';
import { type ChildHost, spawnHost, testEnv, waitUntil } from '@svc/testkit';

/** This machine's first non-loopback IPv4 address, as another machine on its network would reach it. */
const outside = Object.values(networkInterfaces())
  .flat()
  .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '0.0.0.0', () => r()));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

const started: ChildHost[] = [];
afterAll(async () => {
  await Promise.all(started.map((h) => h.kill('SIGTERM')));
});

async function sessionHost(env: Record<string, string>): Promise<void> {
  // LOG_LEVEL info: spawnHost learns the port from the host's "listening" line.
  const hostEnv = testEnv({ LOG_LEVEL: 'info', ...env }) as Record<string, string>;
  started.push(await spawnHost('services/session/src/main.ts', hostEnv));
}

const scrape = (host: string, port: number) =>
  fetch(`http://${host}:${port}/metrics`, { signal: AbortSignal.timeout(2000) });

(outside ? describe : describe.skip)(`metrics on ${outside ?? 'a non-loopback address'}`, () => {
  it('answer /metrics at a non-loopback address when METRICS_BIND_HOST is 0.0.0.0', async () => {
    const port = await freePort();
    await sessionHost({ METRICS_PORT: String(port), METRICS_BIND_HOST: '0.0.0.0' });
    await waitUntil(async () => (await scrape(outside!, port)).ok, 30_000);
    const res = await scrape(outside!, port);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('service="session"');
    expect(text).toContain('process_resident_memory_bytes');
  }, 90_000);

  it('stay on loopback by default: the same address refuses the connection', async () => {
    const port = await freePort();
    await sessionHost({ METRICS_PORT: String(port) });
    await waitUntil(async () => (await scrape('127.0.0.1', port)).ok, 30_000);
    await expect(scrape(outside!, port)).rejects.toThrow();
  }, 90_000);
});
