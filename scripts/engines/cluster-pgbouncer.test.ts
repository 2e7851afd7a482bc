// The session host on the engines operators scale to (CONTRACTS.md "Distributed engines"): a three-master Redis
// Cluster and PgBouncer 1.18 in transaction pooling mode before PostgreSQL, both started here (ports 17000-17020).
// The flows work, one refresh token presented 200 times at once over two replicas rotates exactly once, the
// sign-in pages' multi-key scripts run on the Cluster (CROSSSLOT before hash tags) and BullMQ schedules there.
import {
  createBrowserSessionStore,
  createLogger,
  createMetrics,
  createRedis,
  type Redis,
  systemClock,
} from '@svc/platform';
import {
  type Engine,
  openInfra,
  postJson,
  startPgBouncer,
  startRedisCluster,
  startTestHost,
  type TestInfra,
  testEnv,
  testUrls,
  uniqueName,
} from '@svc/testkit';
import { decodeJwt } from 'jose';
import { createSessionApp } from '../../services/session/src/app';
import { sessionConfigFromEnv } from '../../services/session/src/config';
import { openSessionDeps } from '../../services/session/src/deps';
import { freshSession } from '../../services/session/test/support';
import { workerConfigFromEnv } from '../../services/worker/src/config';
import { workerMetrics } from '../../services/worker/src/metrics';
import { createJobWorker } from '../../services/worker/src/worker';
import { interactionsOn } from '../redis-fixtures';

const engines: Engine[] = [];
const closers: (() => Promise<void>)[] = [];
let nodes = '';
let viaBouncer = '';
let infra: TestInfra;
let cluster: Redis;
const replicas: string[] = [];

beforeAll(async () => {
  const redisCluster = await startRedisCluster();
  engines.push(redisCluster);
  nodes = redisCluster.nodes;
  const bouncer = await startPgBouncer();
  engines.push(bouncer);
  viaBouncer = bouncer.url(new URL(testUrls.database).pathname.slice(1));
  infra = openInfra();
  cluster = createRedis({
    mode: 'cluster',
    nodes: redisCluster.servers.map((s) => ({ host: '127.0.0.1', port: s.port })),
    auth: { tls: false },
  });
  for (let i = 0; i < 2; i += 1) {
    const env = testEnv({
      REDIS_CLUSTER_NODES: nodes,
      DATABASE_URL: viaBouncer,
      DATABASE_POOL_MODE: 'transaction',
      REFRESH_RETRY_WINDOW_MS: '60000',
    });
    const deps = openSessionDeps(sessionConfigFromEnv(env), systemClock);
    const host = await startTestHost(createSessionApp(deps));
    replicas.push(host.url);
    closers.push(async () => {
      await host.close();
      await deps.close();
    });
  }
}, 120_000);

afterAll(async () => {
  for (const close of closers) await close().catch(() => undefined);
  await cluster?.quit().catch(() => undefined);
  await infra?.close();
  for (const engine of engines.reverse()) await engine.stop();
});

test('refresh and introspection work through the Cluster and PgBouncer', async () => {
  const { issued } = await freshSession(infra);
  let token = issued.refreshToken;
  for (const url of [...replicas, ...replicas]) {
    const r = await postJson(`${url}/refresh`, { refreshToken: token });
    expect(r.status).toBe(200);
    token = r.body.refreshToken;
    const i = await postJson(`${url}/introspect`, { accessToken: r.body.accessToken });
    expect([i.status, i.body.status]).toEqual([200, 'active']);
  }
});

test('200 simultaneous presentations of one refresh token over two replicas rotate exactly once', async () => {
  const { issued } = await freshSession(infra);
  const results = await Promise.all(
    Array.from({ length: 200 }, (_, i) =>
      postJson(`${replicas[i % 2]}/refresh`, { refreshToken: issued.refreshToken }),
    ),
  );
  expect(results.filter((r) => r.status !== 200).map((r) => [r.status, r.body])).toEqual([]);
  const tokens = new Set(results.map((r) => r.body.refreshToken));
  expect(tokens.size).toBe(1);
  const session = await infra.db.session.findUniqueOrThrow({ where: { id: issued.sid } });
  expect([session.status, session.currentVersion]).toEqual(['ACTIVE', 2]);
  expect(session.currentJti).toBe(decodeJwt([...tokens][0]!).jti);
});

test("the sign-in pages' scripts run on the Cluster: a session rotates, a request and its return record are taken", async () => {
  const sessions = createBrowserSessionStore(cluster, {
    namespace: uniqueName('c'),
    ttlSeconds: 60,
    clock: systemClock,
  });
  const id = await sessions.issue();
  expect(await sessions.write(id, { step: 'email' })).toBe(true);
  const next = await sessions.rotate(id);
  expect(next).toBeDefined();
  expect(await sessions.isIssued(id)).toBe(false);
  expect(await sessions.read(next!, 'step')).toBe('email');
  const { store: interactions, parked } = interactionsOn(cluster);
  const uid = await interactions.park(parked);
  expect((await interactions.take(uid))?.clientId).toBe('c');
});

test("BullMQ registers the worker's schedules on the Cluster under a hash-tagged prefix", async () => {
  const config = {
    ...workerConfigFromEnv(testEnv({ REDIS_CLUSTER_NODES: nodes })),
    queueName: uniqueName('q'),
    prefix: uniqueName('wk'),
  };
  const jobs = createJobWorker(
    {
      db: infra.db,
      kek: infra.issuance.kek,
      redis: cluster,
      redisTarget: config.redisTarget,
      logger: createLogger('worker', { level: 'silent' }),
      metrics: workerMetrics(createMetrics('worker-engines')),
      clock: systemClock,
    },
    config,
  );
  try {
    await jobs.worker.pause();
    await jobs.schedule();
    expect((await jobs.queue.getJobSchedulers()).map((s) => s.key).sort()).toEqual(['rotate-keys', 'sweep']);
  } finally {
    await jobs.close();
  }
});
