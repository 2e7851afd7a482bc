// The worker process through a Redis outage (every connection reset, new ones refused, then Redis back) writes
// only JSON log lines: every BullMQ object (the queue, the worker and its blocking connection) reports a lost
// Redis through the process's logger, with no stack. Before, the queue had no error listener: BullMQ printed each
// error with console.error (plain text and a stack dump on stderr) for as long as the outage lasted.
import { randomBytes } from 'node:crypto';
import { type FaultProxy, startFaultProxy, testUrls, waitUntil } from '@svc/testkit';
import { type Child, spawnTsx } from './processes';
import { dropQueue, openPrivateDb, type PrivateDb } from './support';

let pdb: PrivateDb;
let proxy: FaultProxy;
let child: Child | undefined;
const queue = `q-${randomBytes(5).toString('hex')}`;
const prefix = `wkr-test-${queue}`;

beforeAll(async () => {
  pdb = await openPrivateDb();
  const redis = new URL(testUrls.redis);
  proxy = await startFaultProxy({ host: redis.hostname, port: Number(redis.port || 6379) });
});
afterAll(async () => {
  await child?.kill('SIGKILL');
  await proxy.close();
  await dropQueue(queue, prefix);
  await pdb.drop();
});

const isRecord = (l: unknown): l is Record<string, unknown> => typeof l === 'object' && l !== null;

test('a Redis outage is logged as JSON lines only, without stacks', async () => {
  child = spawnTsx('services/worker/src/main.ts', {
    DATABASE_URL: pdb.url,
    REDIS_URL: proxy.urlFor(testUrls.redis),
    WORKER_QUEUE_NAME: queue,
    WORKER_QUEUE_PREFIX: prefix,
    SWEEP_INTERVAL_SECONDS: '3600',
    KEY_ROTATION_CHECK_SECONDS: '3600',
    LOG_LEVEL: 'info',
  });
  const c = child;
  await c.waitFor((l) => (isRecord(l) && l.msg === 'worker started' ? true : undefined), 60_000);
  const accepted = proxy.accepted;
  await proxy.cut();
  // Every BullMQ object has seen Redis go: each reported it (before, the queue's reports went to stderr).
  await c.waitFor((l) =>
    isRecord(l) && l.dependency === 'redis' && l.source === 'worker' ? true : undefined,
  );
  await c.waitFor((l) =>
    isRecord(l) && l.dependency === 'redis' && l.source === 'queue' ? true : undefined,
  );
  await proxy.pass();
  // Back: the connections are opened again.
  await waitUntil(async () => proxy.accepted >= accepted + 2, 30_000);
  expect(await c.kill('SIGTERM')).toBe(0);
  expect(c.stderr.join('')).toBe('');
  const plain = c.lines.filter((l) => !isRecord(l));
  expect(plain).toEqual([]);
  const stacks = c.lines.filter((l) => /"stack"|\\n\s+at /.test(JSON.stringify(l)));
  expect(stacks).toEqual([]);
  expect(c.lines.at(-1)).toMatchObject({ msg: 'worker stopped' });
}, 120_000);
