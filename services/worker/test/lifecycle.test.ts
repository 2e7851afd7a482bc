// The worker process runs on run-host's lifecycle (serveBackgroundProcess): one start line naming the build, its
// metrics and /healthz on METRICS_PORT, on SIGTERM a drain and a stop line and exit 0; a bad configuration is one
// stderr line naming the variable (never a stack or a value) and exit 1.
import { randomBytes } from 'node:crypto';
import { testUrls } from '@svc/testkit';
import { type Child, freePort, spawnTsx } from './processes';
import { dropQueue } from './support';

const isRecord = (l: unknown): l is Record<string, unknown> => typeof l === 'object' && l !== null;
const queue = `q-${randomBytes(5).toString('hex')}`;
const prefix = `wkr-test-${queue}`;
let child: Child | undefined;

afterAll(async () => {
  await child?.kill('SIGKILL');
  await dropQueue(queue, prefix);
});

test('start line with the version, metrics and /healthz served, SIGTERM drains and exits 0', async () => {
  const metricsPort = await freePort();
  child = spawnTsx('services/worker/src/main.ts', {
    DATABASE_URL: testUrls.database,
    REDIS_URL: testUrls.redis,
    WORKER_QUEUE_NAME: queue,
    WORKER_QUEUE_PREFIX: prefix,
    SWEEP_INTERVAL_SECONDS: '3600',
    KEY_ROTATION_CHECK_SECONDS: '3600',
    METRICS_PORT: String(metricsPort),
    LOG_LEVEL: 'info',
  });
  const c = child;
  const started = await c.waitFor((l) => (isRecord(l) && l.msg === 'worker started' ? l : undefined), 60_000);
  expect(started).toMatchObject({ queue, version: expect.any(Object) });
  const health = await fetch(`http://127.0.0.1:${metricsPort}/healthz`);
  expect([health.status, (await health.json()).status]).toEqual([200, 'ok']);
  const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  expect(metrics).toContain('service="worker"');
  expect(await c.kill('SIGTERM')).toBe(0);
  // The lifecycle's lines, in order (job lines may come between them).
  const msgs = c.lines.filter(isRecord).map((l) => l.msg);
  const lifecycle = ['worker started', 'shutting down: draining', 'worker stopped'];
  expect(msgs.filter((m) => lifecycle.includes(String(m)))).toEqual(lifecycle);
  expect(msgs.at(-1)).toBe('worker stopped');
  expect(c.stderr.join('')).toBe('');
}, 120_000);

test('a bad configuration fails the start: one line on stderr naming the variable, exit 1', async () => {
  const c = spawnTsx('services/worker/src/main.ts', { REDIS_COMMAND_TIMEOUT_MS: 'soon', LOG_LEVEL: 'info' });
  expect(await c.exited).toBe(1);
  const stderr = c.stderr.join('');
  expect(stderr).toMatch(/^worker failed to start: invalid configuration:\s+REDIS_COMMAND_TIMEOUT_MS /);
  expect(stderr).not.toContain('soon');
  expect(stderr).not.toMatch(/\n\s+at /);
  expect(c.lines.filter(isRecord).map((l) => l.msg)).not.toContain('worker started');
}, 60_000);
