// A PostgreSQL streaming replica promoted under traffic (CONTRACTS.md "Distributed engines"): a private primary and
// its synchronous replica (ports 17030-17031, Debian's binaries) behind one address the failover moves; two session
// replicas take refresh traffic, the OIDC host refresh_token grants and the device host /device-authorize when the
// primary crashes, the replica is promoted and the address moved to it. Every answer is a 200 or a 503 with
// Retry-After (never a 401, an invalid_grant or a 500), no refresh chain forks or is lost, and every host takes
// traffic on the new primary within 10 s of it, without a restart. Then the same again behind PgBouncer in
// transaction pooling, re-pointed by a reload: a new replica is copied from the promoted primary (the runbook's
// last step) and promoted in turn while two session replicas refresh through PgBouncer.
import { createPrisma, type Db } from '@svc/db';
import {
  type Engine,
  expectFailClosed,
  type FailoverFigures,
  openInfra,
  type PostgresPairEngine,
  recordFaultFigures,
  runFailover,
  startLoad,
  startPostgresPair,
  type TestInfra,
  testEnv,
} from '@svc/testkit';
import { authorize, type DeviceHarness, provisionDeviceApp } from '../../services/device/test/support';
import {
  codeFor,
  exchange,
  grantFor,
  type OidcHarness,
  provisionRp,
  type RpFixture,
  refresh,
} from '../../services/oidc/test/token-kit';
import { tokenChains } from '../../services/session/test/chains';
import { promoteBehindBouncer, sessionChains } from './bouncer-promotion';
import {
  closePairFiles,
  prepareHostsDatabase,
  startDeviceHost,
  startOidc,
  startSessions,
  waitReady,
} from './hosts';

/** Workers 0-5: session refresh chains (alternating replicas); 6-8: OIDC refresh chains; 9-10: device authorize. */
const CHAINS = 6;
const OIDC = 3;
const DEVICE = 2;
const WORKERS = CHAINS + OIDC + DEVICE;
const RECOVERY_BOUND_MS = 10_000;

const figures = recordFaultFigures<FailoverFigures>('engines-postgres');
const closers: (() => Promise<void>)[] = [];
let pair: PostgresPairEngine | undefined;
const engines: Engine[] = [];
let db: Db;
let infra: TestInfra;
const sessions: string[] = [];
let oidc: OidcHarness;
let device: DeviceHarness;

function hostEnv(extra: Record<string, string> = {}) {
  return testEnv({ DATABASE_URL: pair!.url, REFRESH_RETRY_WINDOW_MS: '60000', ...extra });
}

beforeAll(async () => {
  pair = await startPostgresPair(prepareHostsDatabase);
  db = createPrisma(pair.url);
  infra = openInfra({ over: db });
  sessions.push(...(await startSessions(hostEnv(), 2, closers)));
  const oidcHost = await startOidc(hostEnv(), infra);
  oidc = oidcHost.host;
  closers.push(oidcHost.close);
  const deviceHost = await startDeviceHost(hostEnv(), infra);
  device = deviceHost.host;
  closers.push(deviceHost.close);
  await waitReady([...sessions, oidc.url, device.url]);
}, 180_000);

afterAll(() => closePairFiles({ closers, infra, db, engines, pair }));

/** OIDC refresh chains: one per worker, every successor recorded (a fork is one token answered two ways). */
function oidcChains(rps: RpFixture[], first: string[]) {
  const chains = tokenChains(first);
  return {
    tokens: chains.tokens,
    forks: chains.forks,
    async refresh(i: number) {
      const presented = chains.tokens[i]!;
      const res = await refresh(oidc, rps[i]!, presented);
      if (res.status === 200) chains.advance(i, presented, res.body.refresh_token as string);
      // A dependency failure answers the hosts' 503 TemporarilyUnavailable (OAuth's temporarily_unavailable counts
      // as the same).
      const error = res.body?.error as string | undefined;
      return {
        status: res.status,
        reason: error === 'temporarily_unavailable' ? 'TemporarilyUnavailable' : (error ?? res.body?.reason),
        retryAfter: res.headers.get('retry-after'),
      };
    },
  };
}

test('the primary crashes and its replica is promoted under session, OIDC and device traffic: 200 or 503 with Retry-After, nothing forked or lost, recovery within 10 s', async () => {
  const chains = await sessionChains(infra, CHAINS);
  const rps: RpFixture[] = [];
  const oidcFirst: string[] = [];
  for (let i = 0; i < OIDC; i++) {
    const rp = await provisionRp(oidc);
    const issued = await exchange(oidc, rp, await codeFor(oidc, grantFor(rp)));
    expect(issued.status).toBe(200);
    rps.push(rp);
    oidcFirst.push(issued.body.refresh_token as string);
  }
  const oauth = oidcChains(rps, oidcFirst);
  const deviceApp = await provisionDeviceApp(infra);
  const sent = new Array<number>(CHAINS).fill(0);
  const load = startLoad(
    WORKERS,
    async (w) => {
      if (w < CHAINS) {
        sent[w] = (sent[w] ?? 0) + 1;
        return chains.refresh(w, sessions[(w + (sent[w] ?? 0)) % 2]!);
      }
      if (w < CHAINS + OIDC) return oauth.refresh(w - CHAINS);
      const res = await authorize(device, deviceApp.anchor);
      return { status: res.status, reason: res.body?.reason, retryAfter: res.headers.get('retry-after') };
    },
    { backoffMs: 100 },
  );
  const engine = pair!;
  const result = await runFailover({
    scenario: 'PostgreSQL primary crashed, synchronous replica promoted, address moved',
    load,
    workers: WORKERS,
    hostUrls: [...sessions, oidc.url, device.url],
    group: (w) =>
      w < CHAINS
        ? 'session /refresh'
        : w < CHAINS + OIDC
          ? 'oidc /token refresh'
          : 'device /device-authorize',
    // Every worker feels the outage before the promotion (a failover's detection delay).
    refusalsFirst: 1,
    async fail() {
      engine.primary.crash();
    },
    async promoted() {
      await engine.promote();
      engine.endpoint.moveTo(engine.primary.port);
    },
  });
  figures.push(result);
  expectFailClosed(load.outcomes);
  await chains.expectIntact(infra, sessions[0]!);
  expect(oauth.forks).toEqual([]);
  const again = await Promise.all(oauth.tokens.map((t, i) => refresh(oidc, rps[i]!, t)));
  expect(again.map((r) => r.status)).toEqual(oauth.tokens.map(() => 200));
  expect(result.msToRecover).toBeLessThan(RECOVERY_BOUND_MS);
});

test('behind PgBouncer (transaction pooling) re-pointed by a reload: a rebuilt replica is promoted under session traffic, 200 or 503 with Retry-After, nothing forked or lost, recovery within 10 s', async () => {
  const result = await promoteBehindBouncer({
    pair: pair!,
    infra,
    database: 'engines',
    ports: { replica: 17032, bouncer: 17021 },
    serverLoginRetry: 1,
    scenario:
      'PostgreSQL primary crashed, replica promoted, PgBouncer (transaction pooling) re-pointed by a reload',
    closers,
    engines,
  });
  figures.push(result);
  expect(result.msToRecover).toBeLessThan(RECOVERY_BOUND_MS);
});
