// Sweeps under failure: a worker killed with SIGKILL mid-sweep loses nothing; the job is recovered and finishes on
// a restarted worker, every expired row is handled exactly once, and nothing live is touched. Also: SIGTERM drains.
import { randomBytes, randomUUID } from 'node:crypto';
import { openInfra, provisionApp, type TestInfra, uniqueName, waitUntil } from '@svc/testkit';
import { type Child, spawnTsx } from './processes';
import { dropQueue, openPrivateDb, type PrivateDb, sessionRow } from './support';

const DAY = 86_400_000;
let pdb: PrivateDb;
let infra: TestInfra;
const children: Child[] = [];
const queues: string[] = [];

beforeAll(async () => {
  pdb = await openPrivateDb();
  infra = openInfra({ over: pdb.db });
});
afterAll(async () => {
  for (const c of children) await c.kill('SIGKILL');
  for (const q of queues) await dropQueue(q, `wkr-test-${q}`);
  await infra.close();
  await pdb.drop();
});

function startWorker(queue: string, name: string): Child {
  if (!queues.includes(queue)) queues.push(queue);
  const child = spawnTsx('services/worker/test/fixtures/run-worker.ts', {
    DATABASE_URL: pdb.url,
    WORKER_QUEUE_NAME: queue,
    WORKER_QUEUE_PREFIX: `wkr-test-${queue}`,
    WORKER_TEST_NAME: name,
    SWEEP_INTERVAL_SECONDS: '3600',
    KEY_ROTATION_CHECK_SECONDS: '3600',
    SWEEP_BATCH_SIZE: '10',
    SWEEP_TEST_PAUSE_MS: '800',
    JOB_LOCK_DURATION_MS: '2000',
    JOB_STALLED_INTERVAL_MS: '1000',
    LOG_LEVEL: 'silent',
  });
  children.push(child);
  return child;
}

const at = (offsetMs: number) => new Date(Date.now() + offsetMs);

async function seed() {
  const app = await provisionApp(infra);
  const account = await pdb.db.account.create({ data: { email: `${uniqueName('user')}@example.test` } });
  const session = (expiresAt: Date) =>
    sessionRow({ applicationId: app.applicationId, accountId: account.id, expiresAt });
  const inquiry = (expiresAt: Date) => ({
    applicationId: app.applicationId,
    exposureKeyHash: randomUUID(),
    hiddenKeyHash: 'h',
    constraints: {},
    expiresAt,
  });
  const errand = (expiresAt: Date) => ({
    errandKeyHash: randomUUID(),
    applicationId: app.applicationId,
    accountId: account.id,
    purpose: 'CLAIMS',
    claims: [],
    expiresAt,
  });
  const range = (n: number) => Array.from({ length: n }, (_, i) => i);
  await pdb.db.session.createMany({ data: range(25).map(() => session(at(-DAY))) });
  await pdb.db.session.createMany({ data: range(5).map(() => session(at(DAY))) });
  await pdb.db.inquiry.createMany({ data: range(35).map(() => inquiry(at(-10 * DAY))) });
  // Expired, but still inside the one-day retention: kept.
  await pdb.db.inquiry.createMany({ data: range(5).map(() => inquiry(at(-3600_000))) });
  await pdb.db.errand.createMany({ data: range(15).map(() => errand(at(-10 * DAY))) });
  await pdb.db.errand.createMany({ data: range(5).map(() => errand(at(DAY))) });
  return { due: 25 + 35 + 15 };
}

const counts = async () => ({
  expiredSessions: await pdb.db.session.count({ where: { status: 'EXPIRED' } }),
  activeSessions: await pdb.db.session.count({ where: { status: 'ACTIVE' } }),
  inquiries: await pdb.db.inquiry.count(),
  errands: await pdb.db.errand.count(),
});

const batchesOf = (c: Child) =>
  c.lines.filter(
    (l): l is { batch: string; count: number } => typeof (l as { batch?: unknown }).batch === 'string',
  );
const total = (c: Child) => batchesOf(c).reduce((n, b) => n + b.count, 0);

test('SIGKILL mid-sweep: the job finishes on a restarted worker, nothing lost or done twice', async () => {
  const { due } = await seed();
  const queue = `sweep-${randomBytes(4).toString('hex')}`;
  const first = startWorker(queue, 'first');
  const sweepJob = await first.waitFor((l) =>
    (l as { name?: string }).name === 'sweep' && (l as { active?: string }).active
      ? (l as { active: string }).active
      : undefined,
  );
  // Two committed batches, then the process dies without any chance to clean up.
  await first.waitFor(() => (batchesOf(first).length >= 2 ? true : undefined));
  await first.kill('SIGKILL');
  const doneByFirst = total(first);
  expect(doneByFirst).toBeGreaterThan(0);
  expect(doneByFirst).toBeLessThan(due);

  const second = startWorker(queue, 'second');
  // The killed job's lock lapses; the stalled check hands it to the new replica, which completes it.
  await second.waitFor(
    (l) => ((l as { completed?: string }).completed === sweepJob ? true : undefined),
    30_000,
  );
  await waitUntil(async () => (await counts()).inquiries === 5 && (await counts()).errands === 5, 20_000);
  expect(await counts()).toEqual({ expiredSessions: 25, activeSessions: 5, inquiries: 5, errands: 5 });
  // Every due row was handled exactly once between the two processes.
  expect(doneByFirst + total(second)).toBe(due);
  expect(await second.kill('SIGTERM')).toBe(0);
}, 90_000);

test('SIGTERM drains: the active sweep stops after its current batch, completes, and the process exits 0', async () => {
  const app = await provisionApp(infra);
  await pdb.db.inquiry.createMany({
    data: Array.from({ length: 40 }, () => ({
      applicationId: app.applicationId,
      exposureKeyHash: randomUUID(),
      hiddenKeyHash: 'h',
      constraints: {},
      expiresAt: at(-10 * DAY),
    })),
  });
  const worker = startWorker(`drain-${randomBytes(4).toString('hex')}`, 'drain');
  await worker.waitFor((l) => ((l as { batch?: string }).batch === 'inquiries' ? true : undefined));
  const started = Date.now();
  expect(await worker.kill('SIGTERM')).toBe(0);
  expect(Date.now() - started).toBeLessThan(10_000);
  const completed = worker.lines.find((l) => {
    const line = l as { name?: string; completed?: string };
    return line.name === 'sweep' && line.completed;
  });
  expect(completed).toMatchObject({
    completed: expect.any(String),
    result: { inquiries: expect.any(Number) },
  });
  expect(worker.lines).toContainEqual({ closed: true });
  // It stopped early rather than finishing every batch: the next tick continues.
  expect(await pdb.db.inquiry.count({ where: { applicationId: app.applicationId } })).toBeGreaterThan(0);
}, 60_000);
