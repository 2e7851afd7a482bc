// Several worker replicas at once: the schedules are registered once however many replicas upsert them, each tick
// becomes one job run by exactly one worker, racing rotation ticks rotate once, and failing jobs retry with
// backoff and are counted.
import { createPrisma } from '@svc/db';
import { runScheduledRotation } from '@svc/keyring';
import { createLogger, createMetrics, createRedis, systemClock } from '@svc/platform';
import { provisionApp, testKek, testUrls, useInfra, waitUntil } from '@svc/testkit';
import { createWorkerPorts } from '../src/deps';
import { runRotationTick } from '../src/jobs/rotate-keys';
import { workerMetrics } from '../src/metrics';
import { createJobWorker, JOB_NAMES, type JobWorker } from '../src/worker';
import { dropQueue, openPrivateDb, type PrivateDb, testConfig } from './support';

const DAY = 86_400_000;
let pdb: PrivateDb;

beforeAll(async () => {
  pdb = await openPrivateDb();
});
const infra = useInfra(() => ({ over: pdb.db }));
afterAll(() => pdb.drop());

/** Makes the app's only key 29.5 days old: with the default schedule its successor is due for prepublication. */
async function dueApp() {
  const app = await provisionApp(infra);
  await pdb.db.signingKey.updateMany({
    where: { applicationId: app.applicationId },
    data: { activatedAt: new Date(Date.now() - 29.5 * DAY) },
  });
  return app;
}

test('three racing rotation ticks prepublish exactly one next key', async () => {
  const app = await dueApp();
  const schedule = { rotateEverySeconds: 2_592_000, prepublishSeconds: 86_400, keyCacheTtlMs: 30_000 };
  const ports = createWorkerPorts({ db: pdb.db, redis: infra.redis, kek: infra.issuance.kek });
  const tick = () =>
    runRotationTick({
      ports,
      clock: Date.now,
      schedule,
      batchSize: 10,
    });
  const results = await Promise.all([tick(), tick(), tick()]);
  expect(results.reduce((n, r) => n + r.prepublished, 0)).toBe(1);
  const keys = await pdb.db.signingKey.findMany({ where: { applicationId: app.applicationId } });
  expect(keys.map((k) => k.status).sort()).toEqual(['ACTIVE', 'NEXT']);
  // Activation racing too: with the NEXT key due, one tick activates it and the others see nothing to do.
  await pdb.db.signingKey.updateMany({
    where: { applicationId: app.applicationId, status: 'NEXT' },
    data: { activatesAt: new Date(Date.now() - 1000) },
  });
  const at = new Date();
  const steps = await Promise.all(
    [0, 1, 2].map(() => runScheduledRotation(pdb.db, infra.issuance.kek, app.applicationId, schedule, at)),
  );
  expect(steps.filter((s) => s.activated)).toHaveLength(1);
  const after = await pdb.db.signingKey.groupBy({
    by: ['status'],
    where: { applicationId: app.applicationId },
    _count: true,
  });
  expect(Object.fromEntries(after.map((g) => [g.status, g._count]))).toEqual({ ACTIVE: 1, RETIRING: 1 });
}, 60_000);

test('three workers: one scheduler per job, each tick run once by one worker', async () => {
  const app = await dueApp();
  const config = testConfig({ rotationCheckMs: 700, sweepEveryMs: 700, concurrency: 2 });
  const runs: { id: string; name: string; worker: string }[] = [];
  const workers: JobWorker[] = [];
  const redis = createRedis(testUrls.redis);
  for (const name of ['w1', 'w2', 'w3']) {
    const w = createJobWorker(
      {
        db: pdb.db,
        kek: testKek(),
        redis,
        redisTarget: testUrls.redis,
        logger: createLogger('worker-test', { level: 'silent' }),
        metrics: workerMetrics(createMetrics('worker-test')),
        clock: systemClock,
        name,
      },
      config,
    );
    w.worker.on('completed', (job) => runs.push({ id: job.id as string, name: job.name, worker: name }));
    workers.push(w);
  }
  // Every replica registers the schedules at start-up, at the same moment.
  const started = Date.now();
  await Promise.all(workers.map((w) => w.schedule()));
  const ran = (name: string) => runs.filter((r) => r.name === name).length;
  // Wait for ticks rather than a fixed time: a loaded machine may run them late, never more often.
  await waitUntil(async () => ran(JOB_NAMES.rotateKeys) >= 3 && ran(JOB_NAMES.sweep) >= 3, 30_000, 20);
  const schedulers = await workers[0]!.queue.getJobSchedulers();
  expect(schedulers.map((s) => s.key).sort()).toEqual([JOB_NAMES.rotateKeys, JOB_NAMES.sweep]);
  await Promise.all(workers.map((w) => w.close()));
  const ticks = Math.floor((Date.now() - started) / 700);
  await redis.quit();
  await dropQueue(config.queueName, config.prefix);

  const ids = runs.map((r) => r.id);
  expect(new Set(ids).size).toBe(ids.length);
  // One job per 700 ms slot that began in the run (at most ticks + 1) plus the one run at once, never one per
  // replica: three replicas would triple the count.
  expect(ran(JOB_NAMES.rotateKeys)).toBeLessThanOrEqual(ticks + 2);
  expect(ran(JOB_NAMES.sweep)).toBeLessThanOrEqual(ticks + 2);
  // Whatever replica ran each tick, the rotation happened once.
  const keys = await pdb.db.signingKey.findMany({ where: { applicationId: app.applicationId } });
  expect(keys.map((k) => k.status).sort()).toEqual(['ACTIVE', 'NEXT']);
}, 60_000);

test('a failing job retries with backoff, then is logged and counted as failed', async () => {
  const broken = createPrisma('postgresql://postgres@127.0.0.1:5432/worker_missing_database');
  const metrics = workerMetrics(createMetrics('worker-test'));
  const redis = createRedis(testUrls.redis);
  const config = testConfig({ rotationCheckMs: 60_000, sweepEveryMs: 60_000, backoffMs: 100, attempts: 3 });
  const w = createJobWorker(
    {
      db: broken,
      kek: testKek(),
      redis,
      redisTarget: testUrls.redis,
      logger: createLogger('worker-test', { level: 'silent' }),
      metrics,
      clock: systemClock,
    },
    config,
  );
  const failed = new Promise<{ attempts: number }>((resolve) =>
    w.worker.on('failed', (job) => {
      if (job && job.attemptsMade >= 3) resolve({ attempts: job.attemptsMade });
    }),
  );
  const started = Date.now();
  await w.queue.add(JOB_NAMES.sweep, {}, { attempts: 3, backoff: { type: 'exponential', delay: 100 } });
  expect((await failed).attempts).toBe(3);
  // Exponential backoff: 100 ms, then 200 ms, before the last attempt.
  expect(Date.now() - started).toBeGreaterThanOrEqual(300);
  const counted = await metrics.base.registry.getSingleMetricAsString('worker_jobs_total');
  expect(counted).toMatch(/job="sweep",outcome="retried"[^\n]* 2/);
  expect(counted).toMatch(/job="sweep",outcome="failed"[^\n]* 1/);
  // An unknown job is not retried.
  const unrecoverable = new Promise<number>((resolve) =>
    w.worker.on('failed', (job) => {
      if (job?.name === 'bogus') resolve(job.attemptsMade);
    }),
  );
  await w.queue.add('bogus', {}, { attempts: 5 });
  expect(await unrecoverable).toBe(1);
  await w.close();
  await redis.quit();
  await broken.$disconnect();
  await dropQueue(config.queueName, config.prefix);
}, 60_000);
