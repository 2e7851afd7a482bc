// Where a single-use claim's WAIT goes on a Redis Cluster (three masters, ports 17073-17075, bus 17076-17078): WAIT
// counts the replicas that have its own connection's writes, so it must reach the master that took the SET NX.
// claimOnce pipelines the two; ioredis sends a pipeline to the master of its keys' slot (WAIT has no key). Seen here
// in every master's command statistics, for a key on each: the SET, the WAIT (and the release of the claim no
// replica held) ran on the key's master and nowhere else, and with no replica asked for (REDIS_CLAIM_REPLICAS=0, the
// default) no WAIT is sent at all.
import { randomUUID } from 'node:crypto';
import {
  claimOnce,
  closeRedis,
  createRedis,
  isDependencyFailure,
  type Redis,
  UnreplicatedClaimError,
} from '@svc/platform';
import { type RedisClusterEngine, startRedisCluster } from '@svc/testkit';

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
  for (const admin of masters?.values() ?? []) await closeRedis(admin);
  if (cluster) await closeRedis(cluster);
  await engine?.stop();
});

/** A connection to each master, to read what it ran (its command statistics). */
let masters: Map<number, Redis>;

/** Resets every master's command statistics; `ran()` then says how many SET, WAIT and DEL each one ran since. */
async function countCommands() {
  masters ??= new Map(PORTS.map((port) => [port, createRedis(`redis://127.0.0.1:${port}`)]));
  for (const admin of masters.values()) await admin.config('RESETSTAT');
  return {
    async ran(): Promise<Record<number, { set: number; wait: number; del: number }>> {
      const out: Record<number, { set: number; wait: number; del: number }> = {};
      for (const [port, admin] of masters) {
        const stats = await admin.info('commandstats');
        const calls = (command: string) =>
          Number(new RegExp(`^cmdstat_${command}:calls=(\\d+)`, 'm').exec(stats)?.[1] ?? 0);
        out[port] = { set: calls('set'), wait: calls('wait'), del: calls('del') };
      }
      return out;
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
    const counted = await countCommands();
    // No replica in this Cluster: the WAIT answers 0 and the claim is not honoured (released again).
    const err = await claimOnce(cluster, key, 5, { replicas: 1, waitMs: 50 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnreplicatedClaimError);
    expect(isDependencyFailure(err)).toBe(true);
    const none = { set: 0, wait: 0, del: 0 };
    expect(await counted.ran()).toEqual(
      Object.fromEntries(PORTS.map((p) => [p, p === port ? { set: 1, wait: 1, del: 1 } : none])),
    );
  },
);

test('with no replica asked for, a claim is its SET NX alone', async () => {
  const key = keyOn(PORTS[0]!);
  const counted = await countCommands();
  expect(await claimOnce(cluster, key, 5, { replicas: 0, waitMs: 50 })).toBe(true);
  expect(await claimOnce(cluster, key, 5, { replicas: 0, waitMs: 50 })).toBe(false);
  const ran = await counted.ran();
  expect(ran[PORTS[0]!]).toEqual({ set: 2, wait: 0, del: 0 });
  expect(Object.values(ran).reduce((sum, r) => sum + r.wait, 0)).toBe(0);
});
