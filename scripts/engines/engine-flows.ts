// The flows every Redis engine file runs (CONTRACTS.md "Distributed engines", #31), written once: two session
// replicas, the OIDC host and the device host started from an operator's environment, and the tests that the
// session, OIDC and device flows work on them, that 200 simultaneous presentations of one refresh token over the two
// replicas rotate exactly once, that the sign-in pages' multi-key scripts run and that BullMQ schedules there.
import {
  bullPrefix,
  closeRedis,
  createBrowserSessionStore,
  createLogger,
  createMetrics,
  createRedis,
  type Env,
  type Redis,
  systemClock,
} from '@svc/platform';
import { openInfra, postJson, type TestInfra, testEnv, uniqueName } from '@svc/testkit';
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

export interface FlowHosts {
  /** The hosts' (and the worker's) environment. */
  env: Env;
  infra: TestInfra;
  /** A command connection to where the environment says Redis is, as a host opens it. */
  redis: Redis;
  /** The two session replicas' URLs. */
  replicas: string[];
  oidc: OidcHarness;
  device: DeviceHarness;
  close(): Promise<void>;
}

/**
 * The hosts on an engine: `engineVars` say where Redis and PostgreSQL are (REDIS_SENTINELS, REDIS_CLUSTER_NODES,
 * DATABASE_URL, DATABASE_POOL_MODE), as an operator sets them.
 */
export async function startFlowHosts(engineVars: Env): Promise<FlowHosts> {
  const env = testEnv({
    // README: with REDIS_SENTINELS or REDIS_CLUSTER_NODES set, REDIS_URL is ignored. Pointed where nothing listens,
    // a host that fell back to it would fail here instead of passing on the test Redis.
    REDIS_URL: 'redis://127.0.0.1:1',
    // The 200 presentations of one token on a loaded machine may outlast the default 2 s retry window.
    REFRESH_RETRY_WINDOW_MS: '60000',
    ...engineVars,
  });
  const closers: (() => Promise<void>)[] = [];
  const infra = openInfra();
  const redis = createRedis(workerConfigFromEnv(env).redisTarget);
  const close = async () => {
    for (const done of closers) await done().catch(() => undefined);
    await closeRedis(redis);
    await infra.close();
  };
  try {
    const replicas: string[] = [];
    for (let i = 0; i < 2; i += 1) {
      const session = await startSession(env);
      replicas.push(session.host.url);
      closers.push(session.close);
    }
    const oidc = await startOidc(env, infra);
    closers.push(oidc.close);
    const device = await startDeviceHost(env, infra);
    closers.push(device.close);
    return { env, infra, redis, replicas, oidc: oidc.host, device: device.host, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** What the test names call the engine: its Redis (`the Cluster`) and all of it (`the Cluster and PgBouncer`). */
export interface EngineNames {
  redis: string;
  all: string;
}

/** The flow tests on the hosts `hosts()` gives (started in the file's beforeAll). */
export function engineFlowTests(on: EngineNames, hosts: () => FlowHosts): void {
  test(`refresh and introspection work through ${on.all}`, async () => {
    const { infra, replicas } = hosts();
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
    const { infra, replicas } = hosts();
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

  test(`the sign-in pages' scripts run on ${on.redis}: a session rotates, a request and its return record are taken`, async () => {
    const { redis } = hosts();
    const sessions = createBrowserSessionStore(redis, {
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
    const { store: interactions, parked } = interactionsOn(redis);
    const uid = await interactions.park(parked);
    expect((await interactions.take(uid))?.clientId).toBe('c');
  });

  test(`BullMQ registers the worker's schedules on ${on.redis} under its slot-safe prefix`, async () => {
    const { env, infra, redis } = hosts();
    const config = { ...workerConfigFromEnv(env), queueName: uniqueName('q'), prefix: uniqueName('wk') };
    const jobs = createJobWorker(
      {
        db: infra.db,
        kek: infra.issuance.kek,
        redis,
        redisTarget: config.redisTarget,
        logger: createLogger('worker', { level: 'silent' }),
        metrics: workerMetrics(createMetrics('worker-engines')),
        clock: systemClock,
      },
      config,
    );
    try {
      // BullMQ's scripts take several keys of one queue: on a Cluster they share a slot only under one hash tag.
      const prefix = redis.isCluster ? `{${config.prefix}}` : config.prefix;
      expect([jobs.queue.qualifiedName, bullPrefix(redis, config.prefix)]).toEqual([
        `${prefix}:${config.queueName}`,
        prefix,
      ]);
      await jobs.worker.pause();
      await jobs.schedule();
      expect((await jobs.queue.getJobSchedulers()).map((s) => s.key).sort()).toEqual([
        'rotate-keys',
        'sweep',
      ]);
    } finally {
      await jobs.close();
    }
  });

  test(`the OIDC code flow on ${on.all}: /authorize parks, code, tokens, refresh, userinfo, revocation, no second exchange`, async () => {
    const { oidc } = hosts();
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
    // The code was taken once (one conditional write): a second exchange is refused.
    expect((await exchange(oidc, rp, code)).body.error).toBe('invalid_grant');
  });

  test(`the device flow on ${on.all}: authorize, pending, approve, tokens once, refresh at the session host`, async () => {
    const { infra, device, replicas } = hosts();
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
}
