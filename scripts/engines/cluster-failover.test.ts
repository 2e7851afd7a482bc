// A Redis Cluster master failing over to its replica under traffic (CONTRACTS.md "Distributed engines"): three
// masters with a replica each (ports 17100-17105, bus 17150-17155, cluster-node-timeout 1.5 s); two session replicas
// take refresh traffic and a device host takes polls (one Redis script each, on keys spread over the masters) when
// the master serving most of the polls' keys is SIGKILLed and Redis promotes its replica by itself; then, the killed
// master back as a replica, a planned CLUSTER FAILOVER under the same traffic. redis-failover.ts runs and checks
// each: 200 or 503 with Retry-After, no chain forked or lost, recovery within 10 s without a restart, change
// messages flow.
import {
  dependencyBoundMs,
  FAULT_SLACK_MS,
  type FailoverFigures,
  type RedisClusterEngine,
  recordFaultFigures,
  startRedisCluster,
  testEnv,
  waitFor,
} from '@svc/testkit';
import { deviceConfigFromEnv } from '../../services/device/src/config';
import { openRedisFailoverHosts, type RedisFailoverHosts } from './redis-failover';

const PORTS = [17100, 17101, 17102, 17103, 17104, 17105];
const figures = recordFaultFigures<FailoverFigures>('engines-cluster');
/**
 * The longest a poll may take: with Redis gone, its script (and the deadline's TIME), then with the Cluster back
 * empty, the unknown-code count, PostgreSQL's row and the seed.
 */
const POLL_BOUND_MS = dependencyBoundMs(deviceConfigFromEnv(testEnv()), { redisCommands: 3, statements: 1 });
let engine: RedisClusterEngine | undefined;
let hosts: RedisFailoverHosts | undefined;

beforeAll(async () => {
  engine = await startRedisCluster({
    ports: PORTS,
    busPorts: PORTS.map((p) => p + 50),
    replicasPerMaster: 1,
    // A master unreachable this long is failing; its replica is elected about a second later.
    nodeTimeoutMs: 1500,
  });
  hosts = await openRedisFailoverHosts({ REDIS_CLUSTER_NODES: engine.nodes }, figures);
}, 120_000);

afterAll(async () => {
  await hosts?.close();
  await engine?.stop();
});

/** The master serving most of `keys` (at least two of four over three masters), one of its keys, its replica. */
function busiestMaster(cluster: RedisClusterEngine, keys: string[]) {
  const owners = keys.map((k) => cluster.masterFor(k));
  const count = (p: number | undefined) => owners.filter((o) => o === p).length;
  const port = [...new Set(owners)].sort((a, b) => count(b) - count(a))[0]!;
  const replica = cluster.replicaOf(port);
  if (replica === undefined) throw new Error(`the master on ${port} has no replica`);
  return { port, key: keys[owners.indexOf(port)]!, replica };
}

let killed = 0;

test('a master SIGKILLed under refresh and poll traffic, its replica promoted: 200 or 503 with Retry-After, no chain forked or lost, recovery within 10 s', async () => {
  const cluster = engine!;
  let target = { port: 0, key: '', replica: 0 };
  const result = await hosts!.failoverUnderTraffic(
    'Redis Cluster master SIGKILLed, its replica promoted',
    async ({ pollKeys }) => {
      target = busiestMaster(cluster, pollKeys);
      killed = target.port;
      await cluster.servers.find((s) => s.port === target.port)!.kill();
    },
    () =>
      cluster.serves(
        target.replica,
        target.key,
        PORTS.filter((p) => p !== target.port),
      ),
  );
  // The kill reached the traffic: the polls on the failed master's slots were refused until the promotion.
  expect(result.byGroup['device /device-token']?.['503']).toBeGreaterThan(0);
});

test('CLUSTER FAILOVER of the busiest master under the same traffic, the killed master back as a replica: the same', async () => {
  const cluster = engine!;
  await cluster.servers.find((s) => s.port === killed)!.restart();
  await waitFor('the killed master replicating', () => cluster.replicating(killed), 30_000);
  let target = { port: 0, key: '', replica: 0 };
  await hosts!.failoverUnderTraffic(
    'CLUSTER FAILOVER',
    async ({ pollKeys }) => {
      target = busiestMaster(cluster, pollKeys);
      cluster.failover(target.replica);
    },
    () => cluster.serves(target.replica, target.key, PORTS),
  );
});

test('every node SIGKILLed, then started again (empty): each request answered within its bound, 503 with Retry-After while the Cluster is gone, recovery within 10 s', async () => {
  const cluster = engine!;
  const result = await hosts!.failoverUnderTraffic(
    'every Redis Cluster node SIGKILLed, started again',
    async ({ everyPollRefused }) => {
      const at = Date.now();
      for (const s of cluster.servers) await s.kill();
      try {
        // Gone for longer than a command's bound: a request held until Redis returns is never refused.
        await waitFor('every poll refused twice', () => everyPollRefused(at, 2), 30_000);
      } finally {
        for (const s of cluster.servers) await s.restart();
      }
    },
    () => PORTS.every((p) => cluster.isOk(p)),
  );
  expect(result.slowestMs).toBeLessThan(POLL_BOUND_MS + FAULT_SLACK_MS);
});
