// Where a single-use claim's WAIT goes on a Redis Cluster (three masters, ports 17073-17075, bus 17076-17078): WAIT
// counts the replicas that have its own connection's writes, so it must reach the master that took the SET NX.
// claimOnce pipelines the two; ioredis sends a pipeline to the master of its keys' slot (WAIT has no key). Seen here
// with MONITOR on every master, for a key on each: the SET and the WAIT arrive at the key's master and nowhere else,
// and with no replica asked for (REDIS_CLAIM_REPLICAS=0, the default) no WAIT is sent at all.
import { randomUUID } from 'node:crypto';
import {
  claimOnce,
  closeRedis,
  createRedis,
  isDependencyFailure,
  type Redis,
  UnreplicatedClaimError,
} from '@svc/platform';
import { type RedisClusterEngine, startRedisCluster, waitFor } from '@svc/testkit';

const PORTS = [17073, 17074, 17075];
let engine: RedisClusterEngine;
let cluster: Redis;

beforeAll(async () => {
  engine = await startRedisCluster({ ports: PORTS, busPorts: [17076, 17077, 17078] });
  cluster = createRedis({
    mode: 'cluster',
    nodes: PORTS.map((port) => ({ host: '127.0.0.1', port })),
    auth: { tls: false },
  });
}, 60_000);

afterAll(async () => {
  if (cluster) await closeRedis(cluster);
  await engine?.stop();
});

/** Commands each master receives from now on that name `tag` (the claim's key, or WAIT), by port. */
async function watchMasters(tag: string) {
  const seen = new Map<number, string[]>(PORTS.map((p) => [p, []]));
  const monitors = await Promise.all(
    PORTS.map(async (port) => {
      const connection = createRedis(`redis://127.0.0.1:${port}`);
      const monitor = await connection.monitor();
      monitor.on('monitor', (_time: string, args: string[]) => {
        if (args.includes(tag) || args[0]?.toLowerCase() === 'wait')
          seen.get(port)!.push(args[0]!.toLowerCase());
      });
      return { connection, monitor };
    }),
  );
  return {
    seen,
    async close() {
      for (const { connection, monitor } of monitors) {
        monitor.disconnect();
        await closeRedis(connection);
      }
    },
  };
}

/** A key whose slot the master on `port` serves. */
function keyOn(port: number): string {
  for (;;) {
    const key = `replay:test:${randomUUID()}`;
    if (engine.masterFor(key) === port) return key;
  }
}

test.each(PORTS)(
  'a claim on the master at %i: the SET NX and the WAIT go to that master only',
  async (port) => {
    const key = keyOn(port);
    const watch = await watchMasters(key);
    try {
      // No replica in this Cluster: the WAIT answers 0 and the claim is not honoured (released again).
      const err = await claimOnce(cluster, key, 5, { replicas: 1, waitMs: 50 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UnreplicatedClaimError);
      expect(isDependencyFailure(err)).toBe(true);
      await waitFor('the release seen', () => watch.seen.get(port)!.includes('del'), 5000);
      for (const [p, commands] of watch.seen) {
        expect(commands).toEqual(p === port ? ['set', 'wait', 'del'] : []);
      }
    } finally {
      await watch.close();
    }
  },
);

test('with no replica asked for, a claim is its SET NX alone', async () => {
  const key = keyOn(PORTS[0]!);
  const watch = await watchMasters(key);
  try {
    expect(await claimOnce(cluster, key, 5, { replicas: 0, waitMs: 50 })).toBe(true);
    expect(await claimOnce(cluster, key, 5, { replicas: 0, waitMs: 50 })).toBe(false);
    // One more command on the key after them: MONITOR shows a node's commands in order, so any WAIT is in by then.
    expect(await cluster.exists(key)).toBe(1);
    await waitFor('the claims seen', () => watch.seen.get(PORTS[0]!)!.includes('exists'), 5000);
    expect(watch.seen.get(PORTS[0]!)).toEqual(['set', 'set', 'exists']);
    expect([...watch.seen.values()].flat().filter((c) => c === 'wait')).toEqual([]);
  } finally {
    await watch.close();
  }
});
