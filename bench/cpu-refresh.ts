// CPU per refresh (core-ms), which holds on a loaded machine where throughput does not: the session host started
// as in `pnpm bench`, N refreshes at C connections (each presenting a fresh token), and the CPU the host process
// (all its threads), this database's PostgreSQL backends and this load generator spent over them, from /proc.
// `BENCH_CPU_REFRESHES` (default 20000), `BENCH_CPU_CONNECTIONS` (16), `BENCH_CPU_ROUNDS` (3).
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { issueSession } from '@svc/issuance';
import { createApplicationsStore } from '@svc/issuance/stores';
import { ensureBaselineTerms, openInfra, provisionAccount, provisionApp } from '@svc/testkit';
import autocannon from 'autocannon';
import { benchNode } from './hosts';

const N = Number(process.env.BENCH_CPU_REFRESHES ?? 20000);
const C = Number(process.env.BENCH_CPU_CONNECTIONS ?? 16);
const ROUNDS = Number(process.env.BENCH_CPU_ROUNDS ?? 3);
const PORT = Number(process.env.BENCH_CPU_PORT ?? 24803);
const TICK_MS = 1000 / 100; // USER_HZ
/** `oidc-provider`: node-oidc-provider's refresh-token grant (bench/oidc-provider-reference.ts) instead. */
const REFERENCE = process.env.BENCH_CPU_TARGET === 'oidc-provider';

/** utime + stime of a process (all threads), in ms; 0 when it is gone. */
function cpuMs(pid: number, thread = false): number {
  try {
    const stat = readFileSync(thread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * TICK_MS;
  } catch {
    return 0;
  }
}

/**
 * Instructions retired by a set of processes over a round (`perf stat`), which unlike CPU time hardly moves with
 * the machine's load; undefined without perf (BENCH_CPU_PERF=0 turns it off).
 */
function countInstructions(pids: number[]): { stop(): Promise<number | undefined> } {
  if (process.env.BENCH_CPU_PERF === '0' || pids.length === 0) return { stop: async () => undefined };
  const perf: ChildProcess = spawn('perf', ['stat', '-x', ',', '-e', 'instructions', '-p', pids.join(',')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let out = '';
  perf.stderr!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  // Listened for from the start: perf exits at once when a pid is already gone (a PostgreSQL backend that closed
  // between listing and counting), and an exit missed before stop() would leave the round waiting forever.
  const exited = new Promise<void>((resolve) => {
    perf.once('exit', () => resolve());
    perf.once('error', () => resolve());
  });
  return {
    stop: async () => {
      perf.kill('SIGINT');
      await exited;
      const line = out.split('\n').find((l) => l.includes('instructions'));
      const n = Number(line?.split(',')[0]);
      return Number.isFinite(n) && n > 0 ? n : undefined;
    },
  };
}

async function main() {
  const infra = openInfra();
  await ensureBaselineTerms(infra.db);
  const app = await provisionApp(infra, { methods: ['ACCESS_KEY_DIRECT'] });
  const application = (await createApplicationsStore(infra.db).loadApplication({ anchor: app.anchor }))!;
  const accounts = await Promise.all(Array.from({ length: 4 }, () => provisionAccount(infra)));
  let issued = 0;
  const issue = () =>
    issueSession(infra.issuance, {
      application,
      principal: { kind: 'ACCOUNT', accountId: accounts[issued++ % accounts.length]!.id },
      authMethod: 'ACCESS_KEY_DIRECT',
    });
  const nodeArgs = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const child = spawn(
    benchNode,
    [
      '--import',
      'tsx',
      ...nodeArgs,
      REFERENCE ? 'bench/oidc-provider-reference.ts' : 'services/session/src/main.ts',
    ],
    {
      cwd: path.resolve(__dirname, '..'),
      env: { ...process.env, LOG_LEVEL: 'warn', PORT: String(PORT) },
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
  console.log(`host pid ${child.pid}`);
  const url = `http://127.0.0.1:${PORT}`;
  for (;;) {
    try {
      if ((await fetch(`${url}${REFERENCE ? '/.well-known/openid-configuration' : '/readyz'}`)).ok) break;
    } catch {}
    await new Promise((r) => setTimeout(r, 200));
  }
  const pool: string[] = [];
  const topUp = async () => {
    if (REFERENCE) {
      const res = await fetch(`${url}/bench/seed?n=${Math.max(0, C * 2 - pool.length)}`, { method: 'POST' });
      pool.push(...((await res.json()) as { refreshTokens: string[] }).refreshTokens);
      return;
    }
    const fresh = await Promise.all(Array.from({ length: Math.max(0, C * 2 - pool.length) }, issue));
    pool.push(...fresh.map((c) => c.refreshToken));
  };
  const backends = async () =>
    (
      await infra.db.$queryRaw<{ pid: number }[]>`
        SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`
    ).map((r) => r.pid);
  let failures = 0;
  const run = async (amount: number) => {
    await topUp();
    const r = await autocannon({
      url: `${url}${REFERENCE ? '/token' : '/refresh'}`,
      connections: C,
      amount,
      requests: [
        {
          method: 'POST',
          headers: { 'content-type': REFERENCE ? 'application/x-www-form-urlencoded' : 'application/json' },
          setupRequest: (req) => ({
            ...req,
            body: REFERENCE
              ? `grant_type=refresh_token&client_id=bench-client&refresh_token=${pool.shift()}`
              : JSON.stringify({ refreshToken: pool.shift() }),
          }),
          onResponse: (status, body) => {
            if (status === 200) {
              const key = REFERENCE ? '"refresh_token":"' : '"refreshToken":"';
              const start = body.indexOf(key) + key.length;
              pool.push(body.slice(start, body.indexOf('"', start)));
            } else failures++;
          },
        },
      ],
    });
    return r;
  };
  try {
    await run(Math.min(N, 5000)); // warm-up: JIT, pools, prepared statements (generic plans)
    for (let round = 0; round < ROUNDS; round++) {
      failures = 0;
      const pids = await backends();
      // Backends that come and go during the round count too: each one's CPU from when first seen (0 if born
      // during the round) to when last seen.
      const firstSeen = new Map(pids.map((p) => [p, cpuMs(p)]));
      const lastSeen = new Map(firstSeen);
      const poll = setInterval(() => {
        void backends().then((now) => {
          for (const p of now) {
            if (!firstSeen.has(p)) firstSeen.set(p, 0);
            const ms = cpuMs(p);
            if (ms > 0) lastSeen.set(p, ms);
          }
        });
      }, 250);
      const hostInstructions = countInstructions([child.pid!]);
      const pgInstructions = countInstructions(pids);
      const host0 = cpuMs(child.pid!);
      const main0 = cpuMs(child.pid!, true);
      const self0 = process.cpuUsage();
      const r = await run(N);
      const self = process.cpuUsage(self0);
      const host = cpuMs(child.pid!) - host0;
      const main = cpuMs(child.pid!, true) - main0;
      clearInterval(poll);
      for (const p of firstSeen.keys()) {
        const ms = cpuMs(p);
        if (ms > 0) lastSeen.set(p, ms);
      }
      const pg = [...firstSeen].reduce((a, [p, first]) => a + (lastSeen.get(p) ?? first) - first, 0);
      const [hostInstr, pgInstr] = [await hostInstructions.stop(), await pgInstructions.stop()];
      const n = r.requests.total;
      console.log(
        `round ${round}: ${n} refreshes (${failures} failed), ${r.requests.average.toFixed(0)} req/s; core-ms per refresh: host ${(host / n).toFixed(3)} (main thread ${(main / n).toFixed(3)}), postgres ${(pg / n).toFixed(3)} (${firstSeen.size} backends), load generator ${((self.user + self.system) / 1000 / n).toFixed(3)}, total ${((host + pg + (self.user + self.system) / 1000) / n).toFixed(3)}`,
      );
      if (hostInstr !== undefined)
        console.log(
          `round ${round}: instructions per refresh: host ${(hostInstr / n / 1e6).toFixed(3)} M, postgres ${((pgInstr ?? 0) / n / 1e6).toFixed(3)} M (backends present at the start)`,
        );
    }
  } finally {
    child.kill('SIGTERM');
    await infra.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
