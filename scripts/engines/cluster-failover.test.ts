// A Redis Cluster master failing over to its replica under traffic (CONTRACTS.md "Distributed engines"): three
// masters with a replica each (ports 17100-17105, bus 17150-17155, cluster-node-timeout 1.5 s); two session replicas
// take refresh traffic and a device host takes polls (one Redis script each, on keys spread over the masters) when
// the master holding most of the polls' keys is SIGKILLed and Redis promotes its replica by itself.
// redis-failover.ts runs it and checks it: 200 or 503 with Retry-After, no chain forked or lost, recovery within
// 10 s of the promotion without a restart, change messages flow.
import {
  type FailoverFigures,
  type RedisClusterEngine,
  recordFaultFigures,
  startRedisCluster,
} from '@svc/testkit';
import { openRedisFailoverHosts, type RedisFailoverHosts } from './redis-failover';

const PORTS = [17100, 17101, 17102, 17103, 17104, 17105];
const figures = recordFaultFigures<FailoverFigures>('engines-cluster');
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

test('a master SIGKILLed under refresh and poll traffic, its replica promoted: 200 or 503 with Retry-After, no chain forked or lost, recovery within 10 s', async () => {
  const cluster = engine!;
  let victim = 0;
  let promotedPort: number | undefined;
  let watchedKey = '';
  const result = await hosts!.failoverUnderTraffic(
    'Redis Cluster master SIGKILLed, its replica promoted',
    async ({ pollKeys }) => {
      // The master that serves most of the polls' keys (at least two of four over three masters).
      const owners = pollKeys.map((k) => cluster.masterFor(k));
      const count = (p: number | undefined) => owners.filter((o) => o === p).length;
      victim = [...new Set(owners)].sort((a, b) => count(b) - count(a))[0]!;
      watchedKey = pollKeys[owners.indexOf(victim)]!;
      promotedPort = cluster.replicaOf(victim);
      expect(promotedPort).toBeDefined();
      await cluster.servers.find((s) => s.port === victim)!.kill();
    },
    () =>
      cluster.serves(
        promotedPort!,
        watchedKey,
        PORTS.filter((p) => p !== victim),
      ),
  );
  // The kill reached the traffic: the polls on the failed master's slots were refused until the promotion.
  expect(result.byGroup['device /device-token']?.['503']).toBeGreaterThan(0);
});
