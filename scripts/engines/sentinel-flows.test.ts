// The session, OIDC and device hosts on Redis behind Sentinel (a primary, its replica and one sentinel, started here
// on ports 17060-17062; PostgreSQL reached directly), configured through REDIS_SENTINELS and REDIS_SENTINEL_MASTER as
// an operator would. The flows of engine-flows.ts: the session, OIDC and device flows work, one refresh token
// presented 200 times at once over two replicas rotates exactly once, the sign-in pages' multi-key scripts run on
// the Sentinel-named primary and BullMQ schedules there. The failovers are sentinel-failover.test.ts's.
import { type SentinelEngine, startSentinel } from '@svc/testkit';
import { engineFlowTests, type FlowHosts, startFlowHosts } from './engine-flows';

let engine: SentinelEngine | undefined;
let hosts: FlowHosts;

beforeAll(async () => {
  engine = await startSentinel({ primary: 17060, replica: 17061, sentinel: 17062 });
  hosts = await startFlowHosts({
    REDIS_SENTINELS: engine.sentinels,
    REDIS_SENTINEL_MASTER: engine.master,
  });
}, 120_000);

afterAll(async () => {
  await hosts?.close();
  await engine?.stop();
});

engineFlowTests({ redis: 'Redis behind Sentinel', all: 'Redis behind Sentinel' }, () => hosts);
