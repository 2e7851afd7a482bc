// What waiting for a replica costs a single-use claim (RELIABILITY.md "What a Redis failover can lose"): a Redis
// primary and its replica (behind one sentinel, ports 17070-17072), claims through claimOnce with
// REDIS_CLAIM_REPLICAS 0 and 1 in turn, twice each: the time of one claim alone (median, p99) and how many claims one
// connection carries with 50 at once. Run: pnpm exec tsx bench/claim-cost.ts
import { randomUUID } from 'node:crypto';
import { claimOnce, closeRedis, createRedis } from '@svc/platform';
import { startSentinel, waitFor } from '@svc/testkit';

const SEQUENTIAL = 3000;
const CONCURRENT = 50;
const CONCURRENT_MS = 3000;

async function main(): Promise<void> {
  const engine = await startSentinel({ primary: 17070, replica: 17071, sentinel: 17072 });
  await waitFor('the replica linked', () => engine.replicating(engine.replica.port));
  const url = `redis://127.0.0.1:${engine.primary.port}`;
  // The claims' own connection, as the host core opens it; another, with a wide bound, to let the replica catch up.
  const claims = createRedis(url);
  const admin = createRedis(url, { bounds: { connectTimeoutMs: 2000, commandTimeoutMs: 20_000 } });
  const claim = (replicas: number) =>
    claimOnce(claims, `replay:bench:${randomUUID()}`, 60, { replicas, waitMs: 250 });
  try {
    for (const replicas of [0, 1, 0, 1]) {
      await admin.wait(1, 15_000);
      for (let i = 0; i < 300; i++) await claim(replicas);
      const ms: number[] = [];
      for (let i = 0; i < SEQUENTIAL; i++) {
        const started = process.hrtime.bigint();
        await claim(replicas);
        ms.push(Number(process.hrtime.bigint() - started) / 1e6);
      }
      ms.sort((a, b) => a - b);
      const at = (q: number) => Number(ms[Math.floor(q * ms.length)]!.toFixed(3));
      const started = Date.now();
      let done = 0;
      let refused = 0;
      await Promise.all(
        Array.from({ length: CONCURRENT }, async () => {
          while (Date.now() - started < CONCURRENT_MS) {
            await claim(replicas).catch(() => refused++);
            done++;
          }
        }),
      );
      const perSecond = Math.round(done / ((Date.now() - started) / 1000));
      console.log(JSON.stringify({ replicas, medianMs: at(0.5), p99Ms: at(0.99), perSecond, refused }));
    }
  } finally {
    await closeRedis(claims);
    await closeRedis(admin);
    await engine.stop();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
