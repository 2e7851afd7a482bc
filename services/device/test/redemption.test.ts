// Redemption end to end: two replicas and concurrent polls (exactly one 200, also when every poll reaches
// PostgreSQL at once), tokens verified by an independent verifier (jose) against the session host's JWK Set and
// refreshed at the session host, and basic terms published between approval and redemption (in a database of its
// own: a higher acceptance epoch there cannot disturb other tests' accounts).

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPrisma, migrate } from '@svc/db';
import { deviceCodeHash } from '@svc/device-grant';
import { systemClock } from '@svc/platform';
import { addRule, publishTerms } from '@svc/provisioning';
import { BASELINE_TERMS, ensureBaselineTerms, postJson, testEnv, testUrls, uniqueName } from '@svc/testkit';
import { TYP } from '@svc/token-core';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import pg from 'pg';
import { createSessionApp } from '../../session/src/app';
import { sessionConfigFromEnv } from '../../session/src/config';
import { openSessionDeps } from '../../session/src/deps';
import { approve, authorize, type DeviceHarness, poll, provisionDeviceApp, startDevice } from './support';

let a: DeviceHarness;
let b: DeviceHarness;
let sessionUrl: string;
let closeSession: () => Promise<void>;

beforeAll(async () => {
  a = await startDevice();
  b = await startDevice({}, { clock: a.clock, redisPrefix: a.deps.config.redisPrefix });
  const sessionDeps = openSessionDeps(sessionConfigFromEnv(testEnv()), systemClock);
  const server = http.createServer(createSessionApp(sessionDeps));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  sessionUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  closeSession = async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(() => r(undefined)));
    await sessionDeps.close();
  };
});

afterAll(async () => {
  await closeSession();
  await b.close();
  await a.close();
});

async function startedOn(h: DeviceHarness) {
  const app = await provisionDeviceApp(h.infra);
  const res = await authorize(h, app.anchor);
  return { app, deviceCode: res.body.deviceCode as string, userCode: res.body.userCode as string };
}

describe('two replicas', () => {
  it('ten concurrent polls after approval on two replicas: exactly one 200, every later poll invalid_request', async () => {
    const { deviceCode, userCode } = await startedOn(a);
    await approve(a, userCode);
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => poll(i % 2 ? a : b, deviceCode)));
    expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of answers.filter((x) => x.status !== 200)) expect(r.status).toBe(400);
    for (let i = 0; i < 4; i++) {
      a.clock.advance(5000);
      expect((await poll(i % 2 ? a : b, deviceCode)).body).toEqual({ error: 'invalid_request' });
    }
  });

  it('ten concurrent polls that all reach PostgreSQL (Redis state lost): exactly one 200', async () => {
    const { deviceCode, userCode, app } = await startedOn(a);
    await approve(a, userCode);
    await a.infra.redis.del(`${a.deps.config.redisPrefix}:poll:${deviceCodeHash(deviceCode)}`);
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => poll(i % 2 ? a : b, deviceCode)));
    expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of answers.filter((x) => x.status !== 200)) {
      expect(r.status).toBe(400);
      expect(['invalid_request', 'authorization_pending', 'slow_down']).toContain(r.body.error);
    }
    const sessions = await a.infra.db.session.count({ where: { applicationId: app.applicationId } });
    expect(sessions).toBe(1);
    a.clock.advance(5000);
    expect((await poll(b, deviceCode)).body).toEqual({ error: 'invalid_request' });
  });

  it('a redeemed code whose final mark a promoted Redis replica never got (asynchronous replication) gives no second token', async () => {
    const { deviceCode, userCode, app } = await startedOn(a);
    expect((await poll(a, deviceCode)).body).toEqual({ error: 'authorization_pending' });
    await approve(a, userCode);
    a.clock.advance(5000);
    expect((await poll(b, deviceCode)).status).toBe(200);
    // The replica holds the hash as it was before the redemption (or before the approval, or not at all): the
    // consumption is in PostgreSQL, so the code is spent whatever Redis lost.
    const key = `${a.deps.config.redisPrefix}:poll:${deviceCodeHash(deviceCode)}`;
    const lost = [['x'], ['x', 'd']];
    for (const fields of lost) {
      await a.infra.redis.hdel(key, ...fields);
      a.clock.advance(5000);
      const again = await poll(a, deviceCode);
      expect(again.status).toBe(400);
      expect(['invalid_request', 'authorization_pending']).toContain(again.body.error);
    }
    await a.infra.redis.del(key);
    a.clock.advance(5000);
    expect((await poll(b, deviceCode)).body).toEqual({ error: 'invalid_request' });
    expect(await a.infra.db.session.count({ where: { applicationId: app.applicationId } })).toBe(1);
  });

  it('a slow_down raised on one replica holds on the other', async () => {
    const { deviceCode } = await startedOn(a);
    expect((await poll(a, deviceCode)).body).toEqual({ error: 'authorization_pending' });
    a.clock.advance(1000);
    expect((await poll(b, deviceCode)).body).toEqual({ error: 'slow_down', interval: 10 });
    a.clock.advance(6000);
    expect((await poll(a, deviceCode)).body).toEqual({ error: 'slow_down', interval: 15 });
  });
});

describe('tokens', () => {
  it('verify with jose against the session host JWK Set and refresh at the session host', async () => {
    const { deviceCode, userCode, app } = await startedOn(a);
    await approve(a, userCode);
    const issued = await poll(b, deviceCode);
    expect(issued.status).toBe(200);
    const jwks = createRemoteJWKSet(new URL(`${sessionUrl}/applications/${app.anchor}/jwks.json`));
    const access = await jwtVerify(issued.body.accessToken, jwks, {
      audience: app.anchor,
      issuer: a.deps.issuance.issuer,
      typ: TYP.accountAccess,
      algorithms: ['RS256'],
      currentDate: new Date(a.clock()),
    });
    expect(typeof access.payload.sub).toBe('string');
    expect(access.payload.act).toBeUndefined();
    const refresh = await jwtVerify(issued.body.refreshToken, jwks, {
      audience: app.anchor,
      typ: TYP.refresh,
      algorithms: ['RS256'],
      currentDate: new Date(a.clock()),
    });
    expect(refresh.payload.sid).toBe(access.payload.sid);
    const rotated = await postJson(`${sessionUrl}/refresh`, { refreshToken: issued.body.refreshToken });
    expect(rotated.status).toBe(200);
    expect(Object.keys(rotated.body).sort()).toEqual(['accessToken', 'claims', 'refreshToken']);
    const again = await jwtVerify(rotated.body.accessToken, jwks, {
      audience: app.anchor,
      typ: TYP.accountAccess,
    });
    expect(again.payload.sid).toBe(access.payload.sid);
    expect(again.payload.sub).toBe(access.payload.sub);
  });

  it('carry the PASSKEY_USERNAMELESS rule TTLs', async () => {
    const app = await provisionDeviceApp(a.infra, { methods: [] });
    await addRule(a.infra.provisioning, app.anchor, {
      method: 'PASSKEY_USERNAMELESS',
      accessTtl: 600,
      refreshTtl: 86_400,
    });
    const res = await authorize(a, app.anchor);
    await approve(a, res.body.userCode);
    const issued = await poll(a, res.body.deviceCode);
    expect(issued.status).toBe(200);
    const payload = JSON.parse(Buffer.from(issued.body.accessToken.split('.')[1], 'base64url').toString());
    expect(payload.exp - payload.iat).toBe(600);
    const refresh = JSON.parse(Buffer.from(issued.body.refreshToken.split('.')[1], 'base64url').toString());
    expect(refresh.exp - refresh.iat).toBe(86_400);
  });
});

describe('basic terms published between approval and redemption', () => {
  const dbName = uniqueName('wt_device_terms').replace(/-/g, '_');
  const admin = () => new pg.Client({ connectionString: testUrls.database });
  let own: ReturnType<typeof createPrisma>;
  let h: DeviceHarness;

  beforeAll(async () => {
    const client = admin();
    await client.connect();
    await client.query(`CREATE DATABASE "${dbName}"`);
    await client.end();
    const url = new URL(testUrls.database);
    url.pathname = `/${dbName}`;
    await migrate(url.toString());
    own = createPrisma(url.toString());
    await ensureBaselineTerms(own);
    h = await startDevice({}, undefined, { over: own });
  }, 60_000);

  afterAll(async () => {
    await h?.close();
    await own?.$disconnect();
    const client = admin();
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
    await client.end();
  });

  it('access_denied: the account lacks the current receipt at redemption', async () => {
    const { deviceCode, userCode } = await startedOn(h);
    await approve(h, userCode);
    await publishTerms(
      h.infra.provisioning,
      { ...BASELINE_TERMS, requiredAcceptanceEpoch: 2 },
      'http://127.0.0.1:4101',
    );
    const res = await poll(h, deviceCode);
    expect(res.body).toEqual({ error: 'access_denied' });
    const row = await own.deviceAuthorization.findFirstOrThrow({ where: { userCode, state: 'DENIED' } });
    expect(row.sessionId).toBeNull();
    expect(await own.session.count()).toBe(0);
  });
});
