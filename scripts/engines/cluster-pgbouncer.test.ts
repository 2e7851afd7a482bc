// The session, OIDC and device hosts on the engines operators scale to (CONTRACTS.md "Distributed engines"): a
// three-master Redis Cluster and PgBouncer 1.18 in transaction pooling mode before PostgreSQL, both started here
// (ports 17000-17020). The flows of engine-flows.ts: the session, OIDC and device flows work, one refresh token
// presented 200 times at once over two replicas rotates exactly once, the sign-in pages' multi-key scripts run on
// the Cluster (CROSSSLOT before hash tags) and BullMQ schedules there.
import { type Engine, startPgBouncer, startRedisCluster, testUrls } from '@svc/testkit';
import { engineFlowTests, type FlowHosts, startFlowHosts } from './engine-flows';

const engines: Engine[] = [];
let hosts: FlowHosts;

beforeAll(async () => {
  const cluster = await startRedisCluster();
  engines.push(cluster);
  const bouncer = await startPgBouncer();
  engines.push(bouncer);
  hosts = await startFlowHosts({
    REDIS_CLUSTER_NODES: cluster.nodes,
    DATABASE_URL: bouncer.url(new URL(testUrls.database).pathname.slice(1)),
    DATABASE_POOL_MODE: 'transaction',
  });
}, 120_000);

afterAll(async () => {
  await hosts?.close();
  for (const engine of engines.reverse()) await engine.stop();
});

engineFlowTests({ redis: 'the Cluster', all: 'the Cluster and PgBouncer' }, () => hosts);
