// A PostgreSQL promotion behind PgBouncer (transaction pooling) re-pointed by a reload, as the engine files run it:
// a synchronous replica is copied from the pair's primary (the runbook's last step after a failover), PgBouncer is
// started before that primary with the `server_login_retry` under test, two session replicas refresh through it
// (6 chains, each alternating replicas) while the primary crashes, the replica is promoted and PgBouncer re-pointed.
import {
  type Engine,
  expectFailClosed,
  type FailoverFigures,
  type PostgresPairEngine,
  provisionApp,
  runFailover,
  startLoad,
  startPgBouncer,
  type TestInfra,
  testEnv,
} from '@svc/testkit';
import { type RefreshChains, refreshChains } from '../../services/session/test/chains';
import { accountRefreshTokens } from '../../services/session/test/support';
import { startSessions, waitReady } from './hosts';

const CHAINS = 6;

/** `count` session refresh chains of a fresh application, from first sessions issued through the test's infra. */
export async function sessionChains(infra: TestInfra, count: number) {
  const app = await provisionApp(infra);
  return refreshChains(await accountRefreshTokens(infra, app.anchor, count));
}

/**
 * `count` load workers, worker `w` refreshing chain `w` at each of the two `urls` in turn (a client whose requests
 * land on either replica), backing off 100 ms after an answer other than 200.
 */
export function alternatingRefreshLoad(
  count: number,
  chains: { refresh(worker: number, url: string): Promise<Awaited<ReturnType<RefreshChains['refresh']>>> },
  urls: string[],
) {
  const sent = new Array<number>(count).fill(0);
  return startLoad(
    count,
    async (w) => {
      sent[w] = (sent[w] ?? 0) + 1;
      return chains.refresh(w, urls[(w + (sent[w] ?? 0)) % urls.length]!);
    },
    { backoffMs: 100 },
  );
}

/**
 * Runs the promotion behind PgBouncer and asserts what must hold whatever the setting (every answer a 200 or a 503
 * with Retry-After, no chain forked or lost); returns the figures (the caller bounds the recovery). The session
 * replicas' close is added to `closers`, PgBouncer to `engines` (stopped after the hosts).
 */
export async function promoteBehindBouncer(opts: {
  pair: PostgresPairEngine;
  infra: TestInfra;
  database: string;
  ports: { replica: number; bouncer: number };
  /** PgBouncer's `server_login_retry`, seconds. */
  serverLoginRetry: number;
  scenario: string;
  closers: (() => Promise<void>)[];
  engines: Engine[];
}): Promise<FailoverFigures> {
  const engine = opts.pair;
  await engine.rebuildReplica(opts.ports.replica, true);
  const bouncer = await startPgBouncer(
    { host: '127.0.0.1', port: engine.primary.port },
    opts.ports.bouncer,
    opts.serverLoginRetry,
  );
  opts.engines.push(bouncer);
  const viaBouncer = testEnv({
    DATABASE_URL: bouncer.url(opts.database),
    DATABASE_POOL_MODE: 'transaction',
    REFRESH_RETRY_WINDOW_MS: '60000',
  });
  const replicas = await startSessions(viaBouncer, 2, opts.closers);
  await waitReady(replicas);
  const chains = await sessionChains(opts.infra, CHAINS);
  const load = alternatingRefreshLoad(CHAINS, chains, replicas);
  const result = await runFailover({
    scenario: opts.scenario,
    load,
    workers: CHAINS,
    hostUrls: replicas,
    group: () => 'session /refresh',
    // PgBouncer queues queries while its server is gone: each waits out the host's statement bound (a 503) first.
    refusalsFirst: 1,
    async fail() {
      engine.primary.crash();
    },
    async promoted() {
      await engine.promote();
      bouncer.repoint({ host: '127.0.0.1', port: engine.primary.port });
      engine.endpoint.moveTo(engine.primary.port);
    },
  });
  expectFailClosed(load.outcomes);
  await chains.expectIntact(opts.infra, replicas[0]!);
  return result;
}
