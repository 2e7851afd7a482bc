// Replica death: two session hosts as real processes share refresh load; one is killed with SIGKILL mid-load.
// Only the requests it had in flight fail; each client retries on the survivor at once and gets the successor
// (the same pair every time it asks within the retry window); no chain forks or is lost.
import {
  type ChildHost,
  postJson,
  provisionApp,
  spawnHost,
  startLoad,
  useInfra,
  waitUntil,
} from '@svc/testkit';
import { refreshChains } from './chains';
import { accountRefreshTokens } from './support';

const WORKERS = 16;
/** Long enough that "retry within the window" never depends on how loaded the CI machine is. */
const RETRY_WINDOW_MS = '15000';

const infra = useInfra();
let a: ChildHost;
let b: ChildHost;
const first: string[] = [];

beforeAll(async () => {
  // Fixtures first: RSA key generation competes with two starting hosts for the CPU otherwise.
  const app = await provisionApp(infra);
  first.push(...(await accountRefreshTokens(infra, app.anchor, WORKERS)));
  [a, b] = await Promise.all([
    spawnHost('services/session/src/main.ts', { REFRESH_RETRY_WINDOW_MS: RETRY_WINDOW_MS }),
    spawnHost('services/session/src/main.ts', { REFRESH_RETRY_WINDOW_MS: RETRY_WINDOW_MS }),
  ]);
}, 90_000);

afterAll(async () => {
  await Promise.all([a?.kill(), b?.kill()]);
});

it('SIGKILL of one replica under refresh load fails only its in-flight requests; retries on the survivor get the successor', async () => {
  const chains = refreshChains(first);
  let killAt = 0;
  const failed: { worker: number; startedAt: number; token: string }[] = [];
  const sameSuccessor: boolean[] = [];

  // Even workers use replica a until it dies (the load balancer then stops sending there), odd ones b.
  const load = startLoad(WORKERS, async (w) => {
    const target = w % 2 === 0 && !killAt ? a : b;
    const startedAt = Date.now();
    const presented = chains.tokens[w]!;
    try {
      return await chains.refresh(w, target.url);
    } catch (err) {
      if (target !== a) throw err;
      failed.push({ worker: w, startedAt, token: presented });
      // The client's retry on the survivor, at once, with the same token; then once more to see it is stable.
      const retried = await chains.refresh(w, b.url);
      const again = await postJson(`${b.url}/refresh`, { refreshToken: presented });
      sameSuccessor.push(
        retried.status === 200 && again.status === 200 && again.body.refreshToken === chains.tokens[w],
      );
      return retried;
    }
  });

  const onA = () => load.outcomes.filter((o) => o.worker % 2 === 0 && o.status === 200).length;
  await waitUntil(async () => onA() >= WORKERS * 3, 60_000);
  killAt = Date.now();
  await a.kill('SIGKILL');
  const killedAt = Date.now();
  await waitUntil(async () => {
    const after = load.since(killedAt);
    return new Set(after.filter((o) => o.status === 200).map((o) => o.worker)).size === WORKERS;
  }, 60_000);
  await load.stop();

  expect(await a.exited).toBe('SIGKILL');
  // Every answer the clients saw (retries included) was a 200: the dead replica's requests were retried.
  expect(load.outcomes.filter((o) => o.status !== 200)).toEqual([]);
  // Only requests in flight on the dead replica at the kill failed, at most one per client that used it.
  for (const f of failed) {
    expect(f.worker % 2).toBe(0);
    expect(f.startedAt).toBeLessThanOrEqual(killAt);
  }
  expect(failed.length).toBeLessThanOrEqual(WORKERS / 2);
  expect(sameSuccessor).toEqual(failed.map(() => true));
  await chains.expectIntact(infra, b.url);
  process.stdout.write(
    `${JSON.stringify({
      host: 'session',
      scenario: 'SIGKILL of one of two replicas under refresh load',
      requests: load.outcomes.length,
      failedInFlight: failed.length,
      retriedOnSurvivor: sameSuccessor.filter(Boolean).length,
    })}\n`,
  );
}, 120_000);
