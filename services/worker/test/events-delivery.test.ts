// Events to applications, end to end from outside: a session host and the real worker as processes over a private
// database, a receiver on loopback. A logout, a revoke-all, an account suspension and an operator's session
// suspension each reach the receiver as one correctly signed, correctly shaped SET within 5 s; a 500 is retried
// with backoff; a receiver that was down gets the event once it is back; a redirect is not followed; the CLI
// lists and redelivers.

import { moveSession, setAccountStatus } from '@svc/provisioning';
import {
  type ChildHost,
  type EventReceiver,
  openPrivateDb as openPrivateDbOf,
  type PrivateDb,
  postJson,
  provisionClientKey,
  signClientAuth,
  startEventReceiver,
  useInfra,
  waitUntil,
} from '@svc/testkit';
import { admin } from '../../../tools/admin/test/run-admin';
import {
  CAEP,
  RISC,
  startSessionChild,
  startWorkerChild,
  subscribedSession,
  verifySet,
} from './events-support';
import type { Child } from './processes';

let pdb: PrivateDb;
let session: ChildHost;
let worker: Child;
const receivers: EventReceiver[] = [];

beforeAll(async () => {
  pdb = await openPrivateDbOf({ prefix: 'events', terms: true });
  [session, worker] = await Promise.all([startSessionChild(pdb.url), startWorkerChild(pdb.url)]);
}, 180_000);
const infra = useInfra(() => ({ over: pdb.db }));
afterAll(async () => {
  for (const r of receivers) await r.close();
  await worker?.kill('SIGKILL');
  await session?.kill('SIGKILL');
  await pdb.drop();
});

async function receiver(port?: number) {
  const r = await startEventReceiver({ port });
  receivers.push(r);
  return r;
}

const outboxRows = (applicationId: string) =>
  infra.db.eventOutbox.findMany({ where: { applicationId }, orderBy: { createdAt: 'asc' } });

describe('a change reaches a subscribed receiver as a SET within 5 s', () => {
  it('logout: session-revoked (logout) with sid and the pairwise subject, 202 delivered once', async () => {
    const r = await receiver();
    const { app, issued } = await subscribedSession(infra, r.url);
    const res = await postJson(`${session.url}/logout`, { refreshToken: issued.refreshToken });
    const changed = Date.now();
    expect([res.status, res.body]).toEqual([200, { revoked: true }]);
    const [push] = await r.waitFor(1, 5_000);
    expect(push!.at - changed).toBeLessThan(5_000);
    expect([push!.method, push!.path]).toEqual(['POST', '/events']);
    expect(push!.headers['content-type']).toBe('application/secevent+jwt');
    const { claims, type, event } = await verifySet(session.url, app.anchor, push!.body);
    expect(type).toBe(`${CAEP}session-revoked`);
    expect(event).toEqual({
      subject: { format: 'opaque', id: issued.subject },
      sid: issued.sid,
      reason: 'logout',
      event_timestamp: claims.iat,
    });
    const [row] = await outboxRows(app.applicationId);
    expect(claims.jti).toBe(row!.id);
    expect(typeof claims.txn).toBe('string');
    await waitUntil(async () => (await outboxRows(app.applicationId))[0]!.status === 'DELIVERED');
    // A second logout changes nothing and causes no event.
    await postJson(`${session.url}/logout`, { refreshToken: issued.refreshToken });
    expect(await outboxRows(app.applicationId)).toHaveLength(1);
  });

  it('revoke-all: one session-revoked (revoke_all) per session, sharing the change txn', async () => {
    const r = await receiver();
    const { app, account, issued } = await subscribedSession(infra, r.url);
    const { issueFor } = await import('./events-support');
    const second = await issueFor(infra, app.anchor, account.id);
    const ck = await provisionClientKey(infra, app.anchor);
    const body = JSON.stringify({ subject: issued.subject });
    const auth = await signClientAuth({ ...ck, iss: app.anchor, aud: 'service-session', body });
    const res = await postJson(`${session.url}/revoke-all`, body, { authorization: `ClientAuth ${auth}` });
    expect(res.status).toBe(200);
    const pushes = await r.waitFor(2, 5_000);
    const sets = await Promise.all(pushes.map((p) => verifySet(session.url, app.anchor, p.body)));
    expect(sets.map((s) => s.event.sid).sort()).toEqual([issued.sid, second.sid].sort());
    expect(sets.every((s) => s.type === `${CAEP}session-revoked` && s.event.reason === 'revoke_all')).toBe(
      true,
    );
    expect(sets[0]!.claims.txn).toBe(sets[1]!.claims.txn);
    expect(sets[0]!.claims.jti).not.toBe(sets[1]!.claims.jti);
  });

  it('account suspension: session-revoked (account_suspended) and account-disabled; enabling: account-enabled', async () => {
    const r = await receiver();
    const { app, account, issued } = await subscribedSession(infra, r.url);
    await setAccountStatus(infra.provisioning, account.id, 'DISABLED');
    const pushes = await r.waitFor(2, 5_000);
    const sets = await Promise.all(pushes.map((p) => verifySet(session.url, app.anchor, p.body)));
    const byType = Object.fromEntries(sets.map((s) => [s.type, s.event]));
    // Both carry the audit row of the operator's change as their txn.
    const audit = await infra.db.auditEvent.findFirst({
      where: { action: 'account.suspend', targetId: account.id },
    });
    expect(sets.map((s) => s.claims.txn)).toEqual([audit!.id, audit!.id]);
    expect(byType[`${CAEP}session-revoked`]).toMatchObject({ sid: issued.sid, reason: 'account_suspended' });
    expect(byType[`${RISC}account-disabled`]).toMatchObject({
      subject: { format: 'opaque', id: issued.subject },
    });
    await setAccountStatus(infra.provisioning, account.id, 'ACTIVE');
    const [, , enabled] = await r.waitFor(3, 5_000);
    const e = await verifySet(session.url, app.anchor, enabled!.body);
    expect(e.type).toBe(`${RISC}account-enabled`);
    expect(e.event.subject).toEqual({ format: 'opaque', id: issued.subject });
  });

  it("an operator's session suspension: session-revoked (operator); resuming causes none", async () => {
    const r = await receiver();
    const { app, issued } = await subscribedSession(infra, r.url);
    await moveSession(infra.provisioning, issued.sid, 'suspend', infra.issuance.clock);
    const [push] = await r.waitFor(1, 5_000);
    const { event } = await verifySet(session.url, app.anchor, push!.body);
    expect(event).toMatchObject({ sid: issued.sid, reason: 'operator' });
    await moveSession(infra.provisioning, issued.sid, 'resume', infra.issuance.clock);
    expect(await outboxRows(app.applicationId)).toHaveLength(1);
  });

  it('an application subscribed to other events only, or not at all, gets no row', async () => {
    const r = await receiver();
    const { app, issued } = await subscribedSession(infra, r.url, { events: ['account-disabled'] });
    await postJson(`${session.url}/logout`, { refreshToken: issued.refreshToken });
    expect(await outboxRows(app.applicationId)).toHaveLength(0);
    const cleared = await admin(['app', 'events', 'clear', '--app', app.anchor], { DATABASE_URL: pdb.url });
    expect(cleared.json).toEqual({ applicationAnchor: app.anchor, cleared: true });
  });
});

describe('delivery keeps trying and never follows a redirect', () => {
  it('a 500 is retried with backoff (1 s, then 2 s) until a 2xx', async () => {
    const r = await receiver();
    r.answer((_p, i) => (i < 2 ? { status: 500, body: 'x'.repeat(5000) } : { status: 204 }));
    const { app, issued } = await subscribedSession(infra, r.url);
    await postJson(`${session.url}/logout`, { refreshToken: issued.refreshToken });
    const pushes = await r.waitFor(3, 20_000);
    // The same SET each time (same jti, so a receiver drops a duplicate).
    expect(new Set(pushes.map((p) => p.body)).size).toBe(1);
    expect(pushes[1]!.at - pushes[0]!.at).toBeGreaterThanOrEqual(900);
    expect(pushes[2]!.at - pushes[1]!.at).toBeGreaterThanOrEqual(1900);
    await waitUntil(async () => (await outboxRows(app.applicationId))[0]!.status === 'DELIVERED');
    const [row] = await outboxRows(app.applicationId);
    expect([row!.attempts, row!.lastStatus]).toEqual([3, 204]);
  });

  it('a receiver that is down gets the event once it is back', async () => {
    const r = await receiver();
    const port = r.port;
    await r.close();
    const { app, issued } = await subscribedSession(infra, `http://127.0.0.1:${port}/events`);
    await postJson(`${session.url}/logout`, { refreshToken: issued.refreshToken });
    await waitUntil(async () => ((await outboxRows(app.applicationId))[0]?.attempts ?? 0) >= 1);
    const [failed] = await outboxRows(app.applicationId);
    expect([failed!.status, failed!.lastError]).toEqual(['PENDING', 'connection: ECONNREFUSED']);
    const back = await receiver(port);
    const [push] = await back.waitFor(1, 20_000);
    expect((await verifySet(session.url, app.anchor, push!.body)).event.sid).toBe(issued.sid);
  });

  it('a 302 is a failed attempt: the Location is never asked', async () => {
    const elsewhere = await receiver();
    const r = await receiver();
    r.answer(() => ({ status: 302, headers: { location: elsewhere.url } }));
    const { app, issued } = await subscribedSession(infra, r.url);
    await postJson(`${session.url}/logout`, { refreshToken: issued.refreshToken });
    await r.waitFor(2, 20_000);
    const [row] = await outboxRows(app.applicationId);
    expect([row!.status, row!.lastStatus, row!.lastError]).toEqual(['PENDING', 302, 'redirect: 302']);
    expect(elsewhere.received).toHaveLength(0);
  });

  it('events list shows a failed event and events redeliver sends it again', async () => {
    const r = await receiver();
    const { app, issued } = await subscribedSession(infra, r.url);
    r.answer(() => ({ status: 503 }));
    await postJson(`${session.url}/logout`, { refreshToken: issued.refreshToken });
    await r.waitFor(1, 5_000);
    // 72 hours of retries, as the row would have after them.
    const [row] = await outboxRows(app.applicationId);
    await infra.db.eventOutbox.update({ where: { id: row!.id }, data: { status: 'FAILED' } });
    const env = { DATABASE_URL: pdb.url };
    const listed = await admin(['events', 'list', '--app', app.anchor, '--status', 'failed'], env);
    expect(listed.code).toBe(0);
    expect(listed.json.events).toEqual([
      expect.objectContaining({ id: row!.id, event: 'session-revoked', sid: issued.sid, status: 'failed' }),
    ]);
    expect(
      (await admin(['events', 'list', '--app', app.anchor, '--status', 'pending'], env)).json.events,
    ).toEqual([]);
    r.answer(() => ({ status: 202 }));
    const seen = r.received.length;
    const again = await admin(['events', 'redeliver', '--id', row!.id], env);
    expect([again.code, again.json.event.status]).toEqual([0, 'pending']);
    await r.waitFor(seen + 1, 5_000);
    await waitUntil(async () => (await outboxRows(app.applicationId))[0]!.status === 'DELIVERED');
    const unknown = await admin(['events', 'redeliver', '--id', '00000000-0000-4000-8000-000000000000'], env);
    expect([unknown.code, unknown.json]).toEqual([1, { error: 'event not found' }]);
  });
});
