// The hostile-input state check: a refusal may add or change nothing, and a key may be gone only because it lapsed
// (replay keys live as long as the token they saw, so a long fuzz run under load outlives some), against real Redis.
import { randomUUID } from 'node:crypto';
import { expectStateKept, provisionApp, snapshotState, useInfra, waitUntil } from './index';

const infra = useInfra();

async function scoped() {
  const app = await provisionApp(infra);
  const prefix = `hostile-state:${randomUUID()}`;
  const scope = { applicationId: app.applicationId, accountIds: [], redisPatterns: [`${prefix}:*`] };
  return { prefix, state: () => snapshotState(infra, scope) };
}

test('a key that lapsed between the snapshots is not a change', async () => {
  const { prefix, state } = await scoped();
  await infra.redis.set(`${prefix}:lasting`, '1', 'EX', 600);
  // Long enough to be in the first snapshot on a loaded machine (a key that lapses between the scan and the read
  // is left out of a snapshot), short enough to wait for.
  await infra.redis.set(`${prefix}:lapsing`, '1', 'PX', 3000);
  const before = await state();
  expect((before as { redis: string[] }).redis).toContain(`${prefix}:lapsing=1`);
  await waitUntil(async () => (await infra.redis.exists(`${prefix}:lapsing`)) === 0);
  expectStateKept(await state(), before);
});

test('a key added, changed or deleted before its time is a change', async () => {
  const { prefix, state } = await scoped();
  await infra.redis.set(`${prefix}:a`, '1', 'EX', 600);
  await infra.redis.set(`${prefix}:b`, '1', 'EX', 600);
  const before = await state();
  await infra.redis.set(`${prefix}:added`, '1', 'EX', 600);
  expect(() => expectStateKept(before, before)).not.toThrow();
  const added = await state();
  expect(() => expectStateKept(added, before)).toThrow();
  await infra.redis.del(`${prefix}:added`);
  await infra.redis.set(`${prefix}:a`, '2', 'KEEPTTL');
  const changed = await state();
  expect(() => expectStateKept(changed, before)).toThrow();
  await infra.redis.set(`${prefix}:a`, '1', 'EX', 600);
  await infra.redis.del(`${prefix}:b`);
  const deleted = await state();
  expect(() => expectStateKept(deleted, before)).toThrow();
});
