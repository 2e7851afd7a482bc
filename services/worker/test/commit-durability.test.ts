// The worker's start-up word on PostgreSQL's commits (commit-durability.ts): which settings mean a failover keeps
// every answered refresh rotation, and the line said for each. Read from a real PostgreSQL in
// scripts/engines/pg-async-promotion.test.ts (an asynchronous pair, then a synchronous standby).
import { captureLogger, openInfra } from '@svc/testkit';
import { commitDurability, reportCommitDurability } from '../src/commit-durability';
import { readCommitSettings } from '../src/store/replication-store';

test.each([
  ['on', '*', 'synchronous'],
  ['remote_apply', 'FIRST 1 (replica_a, replica_b)', 'synchronous'],
  ['remote_write', 'ANY 1 (a, b)', 'synchronous'],
  ['on', '', 'no_standby'],
  ['on', '  ', 'no_standby'],
  ['local', '*', 'no_standby'],
  ['off', '*', 'off'],
  ['off', '', 'off'],
])('synchronous_commit %s with synchronous_standby_names %j: %s', (commit, standbys, expected) => {
  expect(
    commitDurability({ synchronousCommit: commit, synchronousStandbyNames: standbys, attachedReplicas: 1 }),
  ).toBe(expected);
});

test('a warning when an attached replica is not waited for, naming the managed databases where that is expected; info when one is, or when none is attached', async () => {
  const log = captureLogger('worker', 'info');
  const report = (synchronousCommit: string, synchronousStandbyNames: string, attachedReplicas: number) =>
    reportCommitDurability(
      async () => ({ synchronousCommit, synchronousStandbyNames, attachedReplicas }),
      log.logger,
    );
  await report('on', '', 1);
  await report('on', '*', 1);
  await report('off', '*', 1);
  // A lone server (a newcomer's laptop, a managed instance replicating below PostgreSQL): nothing to warn about.
  await report('on', '', 0);
  await report('off', '', 0);
  expect(log.lines.map((l) => [l.level, l.durability])).toEqual([
    [40, 'no_standby'],
    [30, 'synchronous'],
    [40, 'off'],
    [30, 'no_standby'],
    [40, 'off'],
  ]);
  expect(log.lines[0]!.msg).toMatch(/RDS Multi-AZ.*Cloud SQL HA.*Aurora/);
});

test("the machine's own PostgreSQL, a lone server, is read as having no replica attached", async () => {
  const infra = openInfra();
  try {
    const settings = await readCommitSettings(infra.db);
    expect(settings.attachedReplicas).toBe(0);
  } finally {
    await infra.close();
  }
});

test('settings that cannot be read (PostgreSQL down at start-up) give one info line, no warning, and no verdict', async () => {
  const log = captureLogger('worker', 'debug');
  const verdict = await reportCommitDurability(async () => {
    throw new Error('connect ECONNREFUSED');
  }, log.logger);
  expect(verdict).toBeUndefined();
  expect(log.lines.map((l) => l.level)).toEqual([30]);
});
