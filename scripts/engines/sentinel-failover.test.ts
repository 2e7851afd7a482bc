// A Redis Sentinel failover under traffic (CONTRACTS.md "Distributed engines"): two session replicas take refresh
// traffic and a device host takes polls (one Redis script each) through Sentinel (ports 17013-17015) when the
// primary is SIGKILLed, then when a planned SENTINEL FAILOVER moves back; redis-failover.ts runs each and checks
// it (200 or 503 with Retry-After, no chain forked or lost, recovery within 10 s, change messages flow).
import {
  type Engine,
  type FailoverFigures,
  recordFaultFigures,
  type SentinelEngine,
  startSentinel,
  waitFor,
} from '@svc/testkit';
import { openRedisFailoverHosts, type RedisFailoverHosts } from './redis-failover';

const figures = recordFaultFigures<FailoverFigures>('engines-sentinel');
let engine: SentinelEngine;
let hosts: RedisFailoverHosts;

beforeAll(async () => {
  engine = await startSentinel({ primary: 17013, replica: 17014, sentinel: 17015 });
  hosts = await openRedisFailoverHosts(
    { REDIS_SENTINELS: engine.sentinels, REDIS_SENTINEL_MASTER: engine.master },
    figures,
  );
}, 120_000);

afterAll(async () => {
  await (hosts as RedisFailoverHosts | undefined)?.close();
  await (engine as Engine | undefined)?.stop();
});

test('primary SIGKILLed under refresh and poll traffic: 200 or 503 with Retry-After, no chain forked or lost, recovery within 10 s', async () => {
  await hosts.failoverUnderTraffic(
    'Redis Sentinel primary SIGKILLed',
    () => engine.primary.kill(),
    () => engine.primaryPort() === engine.replica.port,
  );
});

test('SENTINEL FAILOVER back to the restarted old primary under the same traffic: the same', async () => {
  // The killed primary comes back; Sentinel makes it a replica of the promoted one.
  await engine.primary.restart();
  await waitFor('the old primary replicating', () => engine.replicating(engine.primary.port), 30_000);
  await hosts.failoverUnderTraffic(
    'SENTINEL FAILOVER',
    async () => engine.failover(),
    () => engine.primaryPort() === engine.primary.port,
  );
});
