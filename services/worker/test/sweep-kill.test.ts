// Sweeps under failure: a worker killed with SIGKILL mid-sweep loses nothing; the job is recovered and finishes on
// a restarted worker, every expired row is handled exactly once, and nothing live is touched. Also: SIGTERM drains.
import { randomBytes, randomUUID } from 'node:crypto';
import { holdInTransaction, provisionApp, uniqueName, useInfra, waitUntil } from '@svc/testkit';
import { type Child, spawnTsx } from './processes';
import { dropQueue, openPrivateDb, type PrivateDb, sessionRow } from './support';

const DAY = 86_400_000;
/** The worker deployment's terminationGracePeriodSeconds: a drain must end before Kubernetes kills the pod. */
const WORKER_GRACE_MS = 30_000;
let pdb: PrivateDb;
const children: Child[] = [];
const queues: string[] = [];

beforeAll(async () => {
  pdb = await openPrivateDb();
});
const infra = useInfra(() => ({ over: pdb.db }));
afterAll(async () => {
  for (const c of children) await c.kill('SIGKILL');
  for (const q of queues) await dropQueue(q, `wkr-test-${q}`);
  await pdb.drop();
});

/**
 * A worker replica. `lockMs` is how long a job's lock lasts without renewal: short where a killed worker's job must
 * lapse to a new replica soon, long enough everywhere that a loaded machine delaying a renewal (every lockMs / 2)
 * does not take a live job away from its worker, whose completion then could not be recorded.
 */
function startWorker(queue: string, name: string, lockMs = 30_000): Child {
  if (!queues.includes(queue)) queues.push(queue);
  const child = spawnTsx('services/worker/test/fixtures/run-worker.ts', {
    DATABASE_URL: pdb.url,
    WORKER_QUEUE_NAME: queue,
    WORKER_QUEUE_PREFIX: `wkr-test-${queue}`,
    WORKER_TEST_NAME: name,
    SWEEP_INTERVAL_SECONDS: '3600',
    KEY_ROTATION_CHECK_SECONDS: '3600',
    SWEEP_BATCH_SIZE: '10',
    JOB_LOCK_DURATION_MS: String(lockMs),
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

/** What a worker's completed sweep job reports it changed, all targets together. */
const sweptBy = (c: Child, job: string) => {
  const line = c.lines.find((l) => (l as { completed?: string }).completed === job) as
    | { result: Record<string, number> }
    | undefined;
  return Object.values(line?.result ?? {}).reduce((n, v) => n + v, 0);
};

/** Holds `table` against deletes (SHARE lock) in a transaction of the test's own until released. */
const lockAgainstDeletes = (table: string) =>
  holdInTransaction(pdb.db, (tx) => tx.$executeRawUnsafe(`LOCK TABLE ${table} IN SHARE MODE`));

// The killed worker's job lapses after this; the replica's stalled check (every second) then hands it on.
const KILLED_LOCK_MS = 5000;

test('SIGKILL mid-sweep: the job finishes on a restarted worker, nothing lost or done twice', async () => {
  const { due } = await seed();
  // Errands are swept after sessions and inquiries: with their table held, the first worker commits those
  // batches and then waits in PostgreSQL, provably mid-sweep, where it is killed.
  const errands = await lockAgainstDeletes('errands');
  const queue = `sweep-${randomBytes(4).toString('hex')}`;
  const first = startWorker(queue, 'first', KILLED_LOCK_MS);
  const sweepJob = await first.waitFor((l) =>
    (l as { name?: string }).name === 'sweep' && (l as { active?: string }).active
      ? (l as { active: string }).active
      : undefined,
  );
  let stuck: number[] = [];
  try {
    await waitUntil(async () => {
      stuck = await errands.waiting();
      return stuck.length > 0;
    });
    // The process dies without any chance to clean up; its statement dies with it (PostgreSQL would only notice
    // the closed socket once the lock is granted, so the test ends the orphaned backend as a lost host would).
    await first.kill('SIGKILL');
    await pdb.db.$queryRawUnsafe(`SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid`, stuck);
  } finally {
    await errands.release();
  }
  const afterFirst = await counts();
  const doneByFirst = afterFirst.expiredSessions + (40 - afterFirst.inquiries) + (20 - afterFirst.errands);
  expect(doneByFirst).toBe(25 + 35);
  expect(doneByFirst).toBeLessThan(due);

  const second = startWorker(queue, 'second', KILLED_LOCK_MS);
  // The killed job's lock lapses; the stalled check hands it to the new replica, which completes it.
  await second.waitFor(
    (l) => ((l as { completed?: string }).completed === sweepJob ? true : undefined),
    30_000,
  );
  expect(await counts()).toEqual({ expiredSessions: 25, activeSessions: 5, inquiries: 5, errands: 5 });
  // Every due row was handled exactly once between the two processes.
  expect(doneByFirst + sweptBy(second, sweepJob)).toBe(due);
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
  // The sweep's first inquiries batch waits on the test's lock: SIGTERM arrives while a batch is in flight.
  const inquiries = await lockAgainstDeletes('inquiries');
  const worker = startWorker(`drain-${randomBytes(4).toString('hex')}`, 'drain');
  let exited: Promise<number | null>;
  try {
    await waitUntil(inquiries.blocked);
    exited = worker.kill('SIGTERM');
  } finally {
    await inquiries.release();
  }
  const started = Date.now();
  expect(await exited).toBe(0);
  // Promptness is the deployment's grace period (terminationGracePeriodSeconds: 30 in deploy/k8s/base/worker, then
  // SIGKILL), not a figure of this machine: the child's shutdown is wall time in a process the test cannot meter,
  // and a loaded machine stretches it by seconds. What draining means is asserted below: the sweep stopped between batches.
  expect(Date.now() - started).toBeLessThan(WORKER_GRACE_MS);
  const completed = worker.lines.find((l) => {
    const line = l as { name?: string; completed?: string };
    return line.name === 'sweep' && line.completed;
  });
  // With the worker's lines, so a failure shows what the worker reported instead (a failed job, a lost lock).
  expect({ completed, lines: worker.lines }).toMatchObject({
    completed: { completed: expect.any(String), result: { inquiries: expect.any(Number) } },
  });
  expect(worker.lines).toContainEqual({ closed: true });
  // It stopped early rather than finishing every batch: the next tick continues.
  expect(await pdb.db.inquiry.count({ where: { applicationId: app.applicationId } })).toBeGreaterThan(0);
}, 120_000);
