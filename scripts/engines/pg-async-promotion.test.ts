// An asynchronous PostgreSQL replica promoted under refresh traffic (#31, RELIABILITY.md "Distributed engines"): a
// private primary and a replica no commit waits for (ports 17040-17044, Debian's binaries) behind one address the
// failover moves; two session replicas take refresh traffic (6 chains, each alternating replicas) when the primary
// crashes and the replica is promoted. What the old primary answered and the replica never received is gone: the
// test counts those rotations from the clients' tokens and the new primary's rows, shows what a client holding such
// a token gets (a 401 RefreshTokenInvalid, once; it signs in again) and that the token before a lost rotation is
// accepted a second time (the chain forks). Once with the replica as it streams (whatever it had not received at
// the crash), once with its stream cut while the primary answers on (a replica fallen behind: the count is then
// known exactly). Then PgBouncer's default server_login_retry (15 s) against a promotion: how long the hosts wait.
import { createPrisma, type Db } from '@svc/db';
import {
  type Engine,
  expectFailClosed,
  type FailoverFigures,
  openInfra,
  type PostgresPairEngine,
  postJson,
  provisionApp,
  recordFaultFigures,
  runFailover,
  startLoad,
  startPostgresPair,
  type TestInfra,
  testEnv,
  waitFor,
  waitUntil,
} from '@svc/testkit';
import { decodeJwt } from 'jose';
import { accountRefreshTokens } from '../../services/session/test/support';
import { promoteBehindBouncer } from './bouncer-promotion';
import { prepareHostsDatabase, startSession } from './hosts';
import { type LosableChains, type LostSession, losableChains } from './losable-chains';

const CHAINS = 6;
const RECOVERY_BOUND_MS = 10_000;
/** PgBouncer's own default for `server_login_retry`, seconds. */
const PGBOUNCER_DEFAULT_LOGIN_RETRY_S = 15;

type AsyncFigures = FailoverFigures & { rotationsLost: number; chainsLost: number; forked: number };
const figures = recordFaultFigures<AsyncFigures>('engines-postgres-async');
const closers: (() => Promise<void>)[] = [];
let pair: PostgresPairEngine | undefined;
const engines: Engine[] = [];
let db: Db;
let infra: TestInfra;
const sessions: string[] = [];

beforeAll(async () => {
  pair = await startPostgresPair(prepareHostsDatabase, {
    ports: { primary: 17040, replica: 17041 },
    database: 'engines_async',
    synchronous: false,
  });
  db = createPrisma(pair.url);
  infra = openInfra({ over: db });
  for (let i = 0; i < 2; i++) {
    const session = await startSession(testEnv({ DATABASE_URL: pair.url, REFRESH_RETRY_WINDOW_MS: '60000' }));
    sessions.push(session.host.url);
    closers.push(session.close);
  }
  for (const url of sessions) {
    await waitFor(`${url} ready`, async () => (await fetch(`${url}/readyz`)).status === 200, 30_000);
  }
}, 180_000);

afterAll(async () => {
  for (const close of closers) await close().catch(() => undefined);
  await infra?.close();
  await db?.$disconnect();
  for (const engine of engines) await engine.stop().catch(() => undefined);
  await pair?.stop();
});

/** Chains of a fresh application over the two session replicas, each alternating between them. */
async function startChains() {
  const app = await provisionApp(infra);
  const chains = losableChains(await accountRefreshTokens(infra, app.anchor, CHAINS), async () => {
    const [token] = await accountRefreshTokens(infra, app.anchor, 1);
    return token!;
  });
  const sent = new Array<number>(CHAINS).fill(0);
  const load = startLoad(
    CHAINS,
    async (w) => {
      sent[w] = (sent[w] ?? 0) + 1;
      return chains.refresh(w, sessions[(w + (sent[w] ?? 0)) % 2]!);
    },
    { backoffMs: 100 },
  );
  return { chains, load };
}

/**
 * What must hold after a promotion that lost rotations: every answer a 200, a 503 with Retry-After, or a 401
 * RefreshTokenInvalid given once to each lost session's newest token after the promotion began (its client then
 * signed in again); the token of the version the new primary holds is accepted again, with a successor other than
 * the one the old primary answered (a fork). Returns the lost sessions.
 */
async function expectRollback(
  chains: LosableChains,
  outcomes: { status: number }[],
  promotingAt: number,
): Promise<{ lost: LostSession[]; forked: number }> {
  expectFailClosed(outcomes.filter((o) => o.status !== 401) as Parameters<typeof expectFailClosed>[0]);
  const lost = await chains.rollback(db);
  const refusedTokens = chains.refused.map((r) => ({
    status: r.status,
    reason: r.reason,
    afterPromotion: r.at >= promotingAt,
    token: r.presented,
  }));
  expect(refusedTokens).toEqual(
    expect.arrayContaining(
      lost.map((l) => ({
        status: 401,
        reason: 'RefreshTokenInvalid',
        afterPromotion: true,
        token: l.newest,
      })),
    ),
  );
  expect(refusedTokens).toHaveLength(lost.length);
  let forked = 0;
  for (const l of lost) {
    const again = await postJson(`${sessions[0]}/refresh`, { refreshToken: l.current });
    expect(again.status).toBe(200);
    expect(again.body.refreshToken).not.toBe(l.answeredSuccessor);
    forked++;
  }
  return { lost, forked };
}

const total = (lost: LostSession[]) => lost.reduce((n, l) => n + l.lost, 0);

test('an asynchronous replica promoted after the primary crashed under refresh traffic: every rotation it had not received is lost, its client gets 401 RefreshTokenInvalid, and the token before it is accepted again (a fork)', async () => {
  const engine = pair!;
  const { chains, load } = await startChains();
  let promotingAt = 0;
  const result = await runFailover({
    scenario: 'PostgreSQL primary crashed, asynchronous replica promoted, address moved',
    load,
    workers: CHAINS,
    hostUrls: sessions,
    group: () => 'session /refresh',
    refusalsFirst: 1,
    async fail() {
      engine.primary.crash();
    },
    async promoted() {
      promotingAt = Date.now();
      await engine.promote();
      engine.endpoint.moveTo(engine.primary.port);
    },
  });
  const { lost, forked } = await expectRollback(chains, load.outcomes, promotingAt);
  figures.push({ ...result, rotationsLost: total(lost), chainsLost: lost.length, forked });
  expect(result.msToRecover).toBeLessThan(RECOVERY_BOUND_MS);
});

test('an asynchronous replica cut off while the primary answers on: exactly the rotations answered after the cut are lost, one 401 and one fork per chain', async () => {
  const engine = pair!;
  await engine.rebuildReplica(17043, false);
  const { chains, load } = await startChains();
  const first = [...chains.held];
  let releasedAt = 0;
  let promotingAt = 0;
  const result = await runFailover({
    scenario: 'asynchronous replica cut off, primary answering on, then crashed; replica promoted',
    load,
    workers: CHAINS,
    hostUrls: sessions,
    group: () => 'session /refresh',
    refusalsFirst: 1,
    async fail() {
      // Held for the cut only, so the replica has exactly what was answered before it.
      const release = await chains.hold();
      await engine.cutReplication();
      releasedAt = Date.now();
      release();
      // Every chain is answered at least once by the primary alone before it crashes.
      await waitUntil(async () => first.every((t) => chains.answeredSince(releasedAt, sidOf(t)) > 0), 30_000);
      engine.primary.crash();
    },
    async promoted() {
      promotingAt = Date.now();
      await engine.promote();
      engine.endpoint.moveTo(engine.primary.port);
    },
  });
  const { lost, forked } = await expectRollback(chains, load.outcomes, promotingAt);
  expect(lost.map((l) => ({ sid: l.sid, lost: l.lost })).sort(bySid)).toEqual(
    first.map((t) => ({ sid: sidOf(t), lost: chains.answeredSince(releasedAt, sidOf(t)) })).sort(bySid),
  );
  figures.push({ ...result, rotationsLost: total(lost), chainsLost: lost.length, forked });
  expect(result.msToRecover).toBeLessThan(RECOVERY_BOUND_MS);
});

const sidOf = (token: string) => decodeJwt(token).sid as string;
const bySid = (a: { sid: string }, b: { sid: string }) => a.sid.localeCompare(b.sid);

test('behind PgBouncer with its default server_login_retry (15 s): a synchronous replica promoted and PgBouncer re-pointed, 200 or 503 with Retry-After, nothing forked or lost; how long the hosts take is measured', async () => {
  const result = await promoteBehindBouncer({
    pair: pair!,
    infra,
    database: 'engines_async',
    ports: { replica: 17044, bouncer: 17042 },
    serverLoginRetry: PGBOUNCER_DEFAULT_LOGIN_RETRY_S,
    scenario: 'PostgreSQL primary crashed, replica promoted, PgBouncer re-pointed; server_login_retry 15 s',
    closers,
    engines,
  });
  figures.push({ ...result, rotationsLost: 0, chainsLost: 0, forked: 0 });
  // PgBouncer's first login to the crashed server failed after the crash; it connects again only once the retry
  // time has passed since, whenever the new primary came (it refuses clients until then; the re-point does not cut
  // it short). So the hosts come back at least that long after the crash, up to 15 s after the new primary: past
  // the 10 s bound when the failover takes under 5 s. The runbook's 1 s (pg-promotion.test.ts) stays within it.
  expect(result.msToNewPrimary + result.msToRecover).toBeGreaterThanOrEqual(
    (PGBOUNCER_DEFAULT_LOGIN_RETRY_S - 1) * 1000,
  );
  expect(result.msToRecover).toBeLessThan(PGBOUNCER_DEFAULT_LOGIN_RETRY_S * 1000 + RECOVERY_BOUND_MS);
}, 120_000);
