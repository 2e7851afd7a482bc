// The session, OIDC and device hosts on the engines operators scale to (CONTRACTS.md "Distributed engines"): a
// three-master Redis Cluster and PgBouncer 1.18 in transaction pooling mode before PostgreSQL, both started here
// (ports 17000-17020). The session, OIDC and device flows work, one refresh token presented 200 times at once over
// two replicas rotates exactly once, the sign-in pages' multi-key scripts run on the Cluster (CROSSSLOT before hash
// tags) and BullMQ schedules there.
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
  type TestInfra,
  testEnv,
  testUrls,
  uniqueName,
} from '@svc/testkit';
import { decodeJwt } from 'jose';
import {
  approve,
  authorize,
  type DeviceHarness,
  poll,
  provisionDeviceApp,
} from '../../services/device/test/support';
import {
  authOf,
  codeFor,
  exchange,
  grantFor,
  type OidcHarness,
  postForm,
  provisionRp,
  refresh,
  tokenFields,
  verifyIdToken,
} from '../../services/oidc/test/token-kit';
import { freshSession } from '../../services/session/test/support';
import { workerConfigFromEnv } from '../../services/worker/src/config';
import { workerMetrics } from '../../services/worker/src/metrics';
import { createJobWorker } from '../../services/worker/src/worker';
import { interactionsOn } from '../redis-fixtures';
import { startDeviceHost, startOidc, startSession } from './hosts';

const engines: Engine[] = [];
const closers: (() => Promise<void>)[] = [];
let nodes = '';
let viaBouncer = '';
let infra: TestInfra;
let cluster: Redis;
const replicas: string[] = [];
let oidc: OidcHarness;
let device: DeviceHarness;

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
  const env = testEnv({
    REDIS_CLUSTER_NODES: nodes,
    DATABASE_URL: viaBouncer,
    DATABASE_POOL_MODE: 'transaction',
    REFRESH_RETRY_WINDOW_MS: '60000',
  });
  for (let i = 0; i < 2; i += 1) {
    const session = await startSession(env);
    replicas.push(session.host.url);
    closers.push(session.close);
  }
  const oidcHost = await startOidc(env, infra);
  oidc = oidcHost.host;
  closers.push(oidcHost.close);
  const deviceHost = await startDeviceHost(env, infra);
  device = deviceHost.host;
  closers.push(deviceHost.close);
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

test('the OIDC code flow on the Cluster and PgBouncer: /authorize parks, code, tokens, refresh, userinfo, revocation, no second exchange', async () => {
  const rp = await provisionRp(oidc);
  const parked = await fetch(
    `${oidc.url}/authorize?${new URLSearchParams({
      client_id: rp.client.clientId,
      redirect_uri: rp.redirectUri,
      response_type: 'code',
      scope: 'openid email',
      state: uniqueName('st'),
    })}`,
    { redirect: 'manual' },
  );
  expect([parked.status, parked.headers.get('location')]).toEqual([
    303,
    expect.stringMatching(/^\/interaction\//),
  ]);
  const grant = grantFor(rp);
  const code = await codeFor(oidc, grant);
  const issued = await exchange(oidc, rp, code);
  expect(issued.status).toBe(200);
  expect((await verifyIdToken(oidc, issued.body.id_token, rp.client.clientId)).nonce).toBe(grant.nonce);
  const rotated = await refresh(oidc, rp, issued.body.refresh_token);
  expect(rotated.status).toBe(200);
  const info = await fetch(`${oidc.url}/userinfo`, {
    headers: { authorization: `Bearer ${rotated.body.access_token}` },
  });
  expect(info.status).toBe(200);
  expect(((await info.json()) as { sub: string }).sub).toBe(decodeJwt(rotated.body.id_token).sub);
  const revoked = await postForm(
    oidc,
    tokenFields(rp, { token: rotated.body.refresh_token, token_type_hint: 'refresh_token' }),
    authOf(rp),
    '/revoke',
  );
  expect(revoked.status).toBe(200);
  expect((await refresh(oidc, rp, rotated.body.refresh_token)).body.error).toBe('invalid_grant');
  // The code was taken once (one conditional write through PgBouncer): a second exchange is refused.
  expect((await exchange(oidc, rp, code)).body.error).toBe('invalid_grant');
});

test('the device flow on the Cluster and PgBouncer: authorize, pending, approve, tokens once, refresh at the session host', async () => {
  const app = await provisionDeviceApp(infra);
  const started = await authorize(device, app.anchor);
  expect(started.status).toBe(200);
  const pending = await poll(device, started.body.deviceCode);
  expect(pending.body).toEqual({ error: 'authorization_pending' });
  await approve(device, started.body.userCode);
  device.clock.advance(started.body.interval * 1000);
  const answers = await Promise.all([
    poll(device, started.body.deviceCode),
    poll(device, started.body.deviceCode),
  ]);
  expect(answers.map((r) => r.status).sort()).toEqual([200, 400]);
  const issued = answers.find((r) => r.status === 200)!;
  const rotated = await postJson(`${replicas[1]}/refresh`, { refreshToken: issued.body.refreshToken });
  expect(rotated.status).toBe(200);
  expect(decodeJwt(rotated.body.accessToken).sid).toBe(decodeJwt(issued.body.accessToken).sid);
});
