// Single use of public-key assertions across a Redis failover, on Redis behind Sentinel (a primary, its replica and
// one sentinel, ports 17070-17072) with two native hosts: one as before (REDIS_CLAIM_REPLICAS=0), one waiting for a
// replica (REDIS_CLAIM_REPLICAS=1), and a waiting session host. A replica that acknowledges nothing (SIGSTOPped)
// makes every single-use claim of the waiting hosts answer 503 with Retry-After and do nothing (a public-key
// assertion, a platform ticket, a client-auth JWT), and they work again once the replica resumes. The attack: an assertion
// used while the replica has not received the claim (the replica hung and its link cut: a crash or a partition
// between the write and its replication), then the primary killed and the replica promoted; the host that does not
// wait accepts the same assertion again (a second session), the one that waits never accepts it twice.
import { closeRedis, createRedis, systemClock } from '@svc/platform';
import { addRule } from '@svc/provisioning';
import {
  openInfra,
  postJson,
  provisionApp,
  provisionClientKey,
  type RunningTestHost,
  type SentinelEngine,
  signClientAuth,
  startSentinel,
  startTestHost,
  type TestInfra,
  testEnv,
  waitFor,
} from '@svc/testkit';
import { createNativeApp } from '../../services/native/src/app';
import { nativeConfigFromEnv } from '../../services/native/src/config';
import { openNativeDeps } from '../../services/native/src/deps';
import {
  ensureTerms,
  freshTicket,
  type PublicKeyFixture,
  publicKeyFixture,
  type SteamStandIn,
  sessionCount,
  signAssertion,
  startSteamStandIn,
} from '../../services/native/test/helpers';
import { freshSession } from '../../services/session/test/support';
import { startSession } from './hosts';

let engine: SentinelEngine;
let infra: TestInfra;
const closers: (() => Promise<void>)[] = [];
/** The host as before (no WAIT) and the host that waits for one replica. */
let unwaited: RunningTestHost;
let waiting: RunningTestHost;
/** A session host that waits for one replica (client-auth at /revoke-all). */
let session: string;
let steam: SteamStandIn;

/** What an operator sets for Redis behind the test's Sentinel, and `replicas` for the claims. */
const engineEnv = (replicas: number) =>
  testEnv({
    // Nothing listens there: a host that ignored REDIS_SENTINELS would fail.
    REDIS_URL: 'redis://127.0.0.1:1',
    REDIS_SENTINELS: engine.sentinels,
    REDIS_SENTINEL_MASTER: engine.master,
    REDIS_CLAIM_REPLICAS: String(replicas),
    REDIS_CLAIM_WAIT_MS: '200',
    STEAM_API_KEY: 'test-publisher-key',
    STEAM_API_URL: steam.url,
  });

async function startHost(replicas: number): Promise<RunningTestHost> {
  const deps = openNativeDeps(nativeConfigFromEnv(engineEnv(replicas)), systemClock);
  const host = await startTestHost(createNativeApp(deps));
  closers.push(async () => {
    await host.close();
    await deps.close();
  });
  return host;
}

beforeAll(async () => {
  engine = await startSentinel({ primary: 17070, replica: 17071, sentinel: 17072 });
  infra = openInfra();
  await ensureTerms(infra);
  steam = await startSteamStandIn();
  closers.push(() => steam.close());
  unwaited = await startHost(0);
  waiting = await startHost(1);
  const started = await startSession(engineEnv(1));
  closers.push(started.close);
  session = started.host.url;
}, 60_000);

afterAll(async () => {
  for (const close of closers.reverse()) await close();
  await infra?.close();
  await engine?.stop();
});

/** The servers in their roles now (they swap at each failover). */
function roles() {
  const primaryPort = engine.primaryPort();
  const [primary, replica] =
    primaryPort === engine.primary.port ? [engine.primary, engine.replica] : [engine.replica, engine.primary];
  return { primary, replica };
}

/** Presents one signed assertion (the same bytes each time it is called with the same `jws`). */
const present = (host: RunningTestHost, f: PublicKeyFixture, jws: string) =>
  postJson(`${host.url}/direct-issue/public-key`, f.body, { authorization: `PublicKey ${jws}` });

/**
 * The first answer of `send` that is not a refused claim: a loaded machine's replica may miss a WAIT of 200 ms, and
 * a refused claim is released, so presenting the unused credential again is what a client does.
 */
async function untilAnswered(send: () => ReturnType<typeof postJson>) {
  let answer = await send();
  for (let i = 0; answer.status === 503 && i < 20; i++) answer = await send();
  return answer;
}

/** A fresh fixture's first use at `host` answers 200: the host reaches the primary and the claim is durable. */
async function issuesAgain(host: RunningTestHost): Promise<void> {
  const f = await publicKeyFixture(infra);
  await waitFor(
    `${host.url} issues`,
    async () => (await present(host, f, await signAssertion(f.cred.key, f.cred.kid, f.body))).status === 200,
    20_000,
  );
}

/**
 * Leaves the current primary with a claim its replica will never get: the replica hangs (SIGSTOP) and the primary
 * drops its link, so nothing written from now on reaches the replica's socket; `use` runs then. Afterwards the
 * primary crashes (SIGKILL), the replica resumes and Sentinel promotes it; the hosts follow.
 */
async function claimThenFailover(use: () => Promise<void>): Promise<void> {
  const { primary, replica } = roles();
  const admin = createRedis(`redis://127.0.0.1:${primary.port}`);
  replica.pause();
  try {
    await admin.client('KILL', 'TYPE', 'replica');
    await waitFor('the link dropped', async () => /connected_slaves:0/.test(await admin.info('replication')));
    await use();
  } finally {
    await closeRedis(admin);
    await primary.kill();
    replica.resume();
  }
  await waitFor('promotion', () => engine.primaryPort() === replica.port, 30_000);
}

/**
 * The killed primary back as the replica of the promoted one. Sentinel would make it one at its next look (up to
 * 10 s, its INFO period); the restart here says so at once, as a restart with Sentinel's rewritten configuration
 * would.
 */
async function rejoin(): Promise<void> {
  const { primary, replica: old } = roles();
  await old.restart();
  const admin = createRedis(`redis://127.0.0.1:${old.port}`);
  try {
    await admin.replicaof('127.0.0.1', primary.port);
  } finally {
    await closeRedis(admin);
  }
  await waitFor('the old primary replicating', () => engine.replicating(old.port), 30_000);
  expect(engine.primaryPort()).toBe(primary.port);
}

test('a replica that acknowledges nothing: every claim of the waiting hosts is 503 and does nothing; resumed, they work', async () => {
  await issuesAgain(waiting);
  const f = await publicKeyFixture(infra);
  const jws = await signAssertion(f.cred.key, f.cred.kid, f.body);
  // A platform ticket for an application that admits it, and a client-auth JWT revoking a subject's sessions.
  const ticketApp = await provisionApp(infra);
  await addRule(infra.provisioning, ticketApp.anchor, { method: 'PLATFORM_TICKET', platformAppIds: [480n] });
  const ticket = freshTicket();
  const signInWithTicket = () =>
    postJson(`${waiting.url}/direct-issue/platform-ticket`, {
      applicationAnchor: ticketApp.anchor,
      platformTicketHex: ticket,
      platformAppId: 480,
    });
  const s = await freshSession(infra);
  const ck = await provisionClientKey(infra, s.app.anchor);
  const revokeBody = JSON.stringify({ subject: s.issued.subject });
  const revokeAuth = `ClientAuth ${await signClientAuth({ ...ck, iss: s.app.anchor, aud: 'service-session', body: revokeBody })}`;
  const revokeAll = () => postJson(`${session}/revoke-all`, revokeBody, { authorization: revokeAuth });
  const introspected = async () =>
    (await postJson(`${session}/introspect`, { accessToken: s.issued.accessToken })).body.status;
  await waitFor(`${session} ready`, async () => (await introspected()) === 'active');

  const { replica } = roles();
  replica.pause();
  try {
    const refused = await present(waiting, f, jws);
    expect(refused.status).toBe(503);
    expect(refused.body.reason).toBe('TemporarilyUnavailable');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await sessionCount(infra, f.account.id)).toBe(0);
    // The ticket is refused before Steam is asked; the revocation is refused and revokes nothing.
    for (const answer of [await signInWithTicket(), await revokeAll()]) {
      expect([answer.status, answer.body?.reason]).toEqual([503, 'TemporarilyUnavailable']);
      expect(answer.headers.get('retry-after')).not.toBeNull();
    }
    expect(steam.calls.filter((c) => c.query.ticket === ticket)).toEqual([]);
    expect(await introspected()).toBe('active');
    // The host that does not wait accepts a claim only the primary holds (today's behaviour).
    const g = await publicKeyFixture(infra);
    expect((await present(unwaited, g, await signAssertion(g.cred.key, g.cred.kid, g.body))).status).toBe(
      200,
    );
  } finally {
    replica.resume();
  }
  // The refused claim was released: the unused assertion is accepted once the replica acknowledges, then only once.
  await waitFor('the replica back', () => engine.replicating(replica.port));
  expect((await untilAnswered(() => present(waiting, f, jws))).status).toBe(200);
  const again = await present(waiting, f, jws);
  expect(again.status).toBe(409);
  expect(again.body.reason).toBe('PublicKeyAssertionReplayed');
  expect(await sessionCount(infra, f.account.id)).toBe(1);
  // The ticket gets past its claim to Steam (a new Steam user is asked to accept the basic terms first), and the
  // same signed revocation revokes.
  const ticketAnswer = await untilAnswered(signInWithTicket);
  expect([ticketAnswer.status, ticketAnswer.body.reason]).toEqual([403, 'LegalAgreementRequired']);
  expect(steam.calls.filter((c) => c.query.ticket === ticket)).toHaveLength(1);
  expect((await untilAnswered(revokeAll)).status).toBe(200);
  expect(await introspected()).toBe('revoked');
}, 30_000);

test('the attack: without WAIT a claim lost in a failover lets the same assertion issue a second session', async () => {
  const f = await publicKeyFixture(infra);
  const jws = await signAssertion(f.cred.key, f.cred.kid, f.body);
  await claimThenFailover(async () => {
    expect((await present(unwaited, f, jws)).status).toBe(200);
    expect((await present(unwaited, f, jws)).status).toBe(409);
  });
  // A fresh assertion's 200 says the host is on the promoted replica; then the captured one is replayed.
  await issuesAgain(unwaited);
  const replayed = await present(unwaited, f, jws);
  expect(replayed.status).toBe(200);
  expect(await sessionCount(infra, f.account.id)).toBe(2);
  await rejoin();
}, 40_000);

test('with REDIS_CLAIM_REPLICAS=1 the same sequence never accepts the assertion twice', async () => {
  const f = await publicKeyFixture(infra);
  const jws = await signAssertion(f.cred.key, f.cred.kid, f.body);
  const answers: number[] = [];
  await claimThenFailover(async () => {
    // No replica holds the claim: the first use is refused, nothing is issued.
    const first = await present(waiting, f, jws);
    expect(first.status).toBe(503);
    expect(first.headers.get('retry-after')).not.toBeNull();
  });
  // The promoted replica is alone: a claim there has no replica either, so every presentation is refused until one
  // rejoins (the unwaiting host's fresh 200 says the hosts reach the new primary).
  await issuesAgain(unwaited);
  answers.push((await present(waiting, f, jws)).status);
  expect(answers).toEqual([503]);
  expect(await sessionCount(infra, f.account.id)).toBe(0);
  // A replica back: the assertion, never used, is accepted once, and only once.
  await rejoin();
  answers.push((await untilAnswered(() => present(waiting, f, jws))).status);
  for (let i = 0; i < 2; i++) answers.push((await present(waiting, f, jws)).status);
  expect(answers).toEqual([503, 200, 409, 409]);
  expect(await sessionCount(infra, f.account.id)).toBe(1);
}, 40_000);
