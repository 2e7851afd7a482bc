// The sweep deletes the management API's Idempotency-Key records once their 24 hours are over, in batches, and
// keeps younger ones (a settable clock over a private database).
import { settableClock, useInfra } from '@svc/testkit';
import { createWorkerPorts } from '../src/deps';
import { runSweeps } from '../src/jobs/sweeps';
import { openPrivateDb, type PrivateDb, testConfig } from './support';

const HOUR = 3_600_000;
let pdb: PrivateDb;
const clock = settableClock();

beforeAll(async () => {
  pdb = await openPrivateDb();
});
const infra = useInfra(() => ({ over: pdb.db, clock }));
afterAll(() => pdb.drop());

test('records older than 24 hours are swept in batches; younger ones stay and still replay', async () => {
  const start = Date.now();
  clock.set(start);
  const operator = await pdb.db.operatorKey.create({
    data: { name: 'sweep', role: 'editor', lookup: `l${start}`, secretHash: 'x' },
  });
  const record = (key: string, createdAt: number, answered = true) =>
    pdb.db.idempotencyRecord.create({
      data: {
        operatorKeyId: operator.id,
        key,
        requestHash: 'h',
        createdAt: new Date(createdAt),
        ...(answered ? { status: 201, headers: {}, body: '{}', completedAt: new Date(createdAt) } : {}),
      },
    });
  for (let i = 0; i < 7; i++) await record(`old-${i}`, start - 25 * HOUR, i % 2 === 0);
  await record('edge', start - 24 * HOUR + 60_000);
  await record('young', start - HOUR);
  const ports = createWorkerPorts({ db: pdb.db, redis: infra.redis, kek: infra.issuance.kek, clock });
  const swept = await runSweeps({
    ports,
    clock,
    batchSize: 3,
    maxBatches: 100,
    retention: testConfig().retention,
  });
  expect(swept.idempotency_records).toBe(7);
  const left = await pdb.db.idempotencyRecord.findMany({ select: { key: true }, orderBy: { key: 'asc' } });
  expect(left.map((r) => r.key)).toEqual(['edge', 'young']);
  // Two minutes later the edge record's 24 hours are over too.
  clock.advance(2 * 60_000);
  const later = await runSweeps({
    ports,
    clock,
    batchSize: 3,
    maxBatches: 100,
    retention: testConfig().retention,
  });
  expect(later.idempotency_records).toBe(1);
  expect((await pdb.db.idempotencyRecord.findMany()).map((r) => r.key)).toEqual(['young']);
});
