// Events survive failures (CONTRACTS "Events to applications", Nothing lost): a worker killed (SIGKILL) while its
// push is in flight leaves the row leased, and another worker delivers it once the lease lapses, the same SET
// (same jti); with Redis cut off (both the session host and the worker reach it through a fault proxy) a logout
// still reaches the receiver: the outbox and its wake-ups are PostgreSQL's.
import {
  type ChildHost,
  type EventReceiver,
  type FaultProxy,
  openPrivateDb,
  type PrivateDb,
  postJson,
  startEventReceiver,
  startFaultProxy,
  testUrls,
  useInfra,
  waitUntil,
} from '@svc/testkit';
import { startSessionChild, startWorkerChild, subscribedSession, verifySet } from './events-support';
import type { Child } from './processes';

let pdb: PrivateDb;
let session: ChildHost | undefined;
const children: Child[] = [];
const receivers: EventReceiver[] = [];
let redisProxy: FaultProxy | undefined;

beforeAll(async () => {
  pdb = await openPrivateDb({ prefix: 'events', terms: true });
}, 120_000);
const infra = useInfra(() => ({ over: pdb.db }));
afterAll(async () => {
  for (const r of receivers) await r.close();
  for (const c of children) await c.kill('SIGKILL');
  await session?.kill('SIGKILL');
  await redisProxy?.close();
  await pdb.drop();
});

async function worker(env: Record<string, string> = {}) {
  const c = await startWorkerChild(pdb.url, env);
  children.push(c);
  return c;
}

it('a worker killed mid-delivery: another delivers the same SET after the lease', async () => {
  session = await startSessionChild(pdb.url);
  const lease = { EVENTS_LEASE_MS: '7000' };
  const first = await worker(lease);
  const r = await startEventReceiver();
  receivers.push(r);
  r.answer((_p, i) => (i === 0 ? 'hold' : { status: 202 }));
  const { app, issued } = await subscribedSession(infra, r.url);
  await postJson(`${session.url}/logout`, { refreshToken: issued.refreshToken });
  const [held] = await r.waitFor(1, 5_000);
  await first.kill('SIGKILL');
  const killedAt = Date.now();
  // The row is still pending: its outcome was never recorded.
  const [row] = await infra.db.eventOutbox.findMany({ where: { applicationId: app.applicationId } });
  expect([row!.status, row!.attempts]).toEqual(['PENDING', 0]);
  await worker(lease);
  const [, again] = await r.waitFor(2, 30_000);
  expect(again!.body).toBe(held!.body);
  expect(again!.at - killedAt).toBeGreaterThan(1_000);
  const { claims } = await verifySet(session.url, app.anchor, again!.body);
  expect(claims.jti).toBe(row!.id);
  await waitUntil(
    async () =>
      (await infra.db.eventOutbox.findUniqueOrThrow({ where: { id: row!.id } })).status === 'DELIVERED',
  );
  await session.kill('SIGKILL');
  session = undefined;
  for (const c of children.splice(0)) await c.kill('SIGKILL');
});

it('Redis cut off at the change: the logout still reaches the receiver', async () => {
  const redis = new URL(testUrls.redis);
  redisProxy = await startFaultProxy({ host: redis.hostname, port: Number(redis.port || 6379) });
  const viaProxy = { REDIS_URL: redisProxy.urlFor(testUrls.redis) };
  session = await startSessionChild(pdb.url, viaProxy);
  await worker(viaProxy);
  const r = await startEventReceiver();
  receivers.push(r);
  const { app, issued } = await subscribedSession(infra, r.url);
  await redisProxy.cut();
  const res = await postJson(`${session.url}/logout`, { refreshToken: issued.refreshToken });
  // The revocation commits in PostgreSQL before the hosts are told over Redis: whatever the answer, it holds.
  expect([200, 503]).toContain(res.status);
  const [push] = await r.waitFor(1, 10_000);
  const { event } = await verifySet(session.url, app.anchor, push!.body);
  expect(event).toMatchObject({ sid: issued.sid, reason: 'logout' });
  await redisProxy.pass();
});
