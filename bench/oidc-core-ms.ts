// Core-ms per OIDC refresh grant: host process CPU + PostgreSQL backend CPU (this database's backends) over N
// grants, from /proc/<pid>/stat, which holds under machine load. Not part of `pnpm bench`. With `session` as the
// third argument, the same for the session host's /refresh (two signatures), for comparison.
//   tsx bench/oidc-core-ms.ts [grants=2000] [chains=8] [oidc|session]
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { issueSession } from '@svc/issuance';
import { createApplicationsStore } from '@svc/issuance/stores';
import { ensureBaselineTerms, openInfra, provisionAccount, provisionApp, type TestInfra } from '@svc/testkit';
import { benchNode } from './hosts';
import { oidcRefreshSeeder } from './oidc';

const N = Number(process.argv[2] ?? 2000);
const CHAINS = Number(process.argv[3] ?? 8);
const SESSION = process.argv[4] === 'session';
const PORT = Number(process.env.CORE_MS_PORT ?? 27391);
const TICK = 100; // USER_HZ

function cpuTicks(pid: number): number {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return Number(f[11]) + Number(f[12]); // utime, stime (fields 14, 15)
  } catch {
    return 0;
  }
}

/** Refresh tokens of sessions issued directly (access-key method) to one new application, round robin over 4 accounts. */
async function sessionSeeder(infra: TestInfra): Promise<() => Promise<string>> {
  const app = await provisionApp(infra, { methods: ['ACCESS_KEY_DIRECT'] });
  const application = (await createApplicationsStore(infra.db).loadApplication({ anchor: app.anchor }))!;
  const accounts = await Promise.all(Array.from({ length: 4 }, () => provisionAccount(infra)));
  let seeded = 0;
  return async () =>
    (
      await issueSession(infra.issuance, {
        application,
        principal: { kind: 'ACCOUNT', accountId: accounts[seeded++ % accounts.length]!.id },
        authMethod: 'ACCESS_KEY_DIRECT',
      })
    ).refreshToken;
}

async function main() {
  const infra = await openInfra();
  await ensureBaselineTerms(infra.db);
  const url = `http://127.0.0.1:${PORT}`;
  const child = spawn(
    benchNode,
    [
      '--import',
      'tsx',
      ...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
      SESSION ? 'services/session/src/main.ts' : 'services/oidc/src/main.ts',
    ],
    {
      env: { ...process.env, LOG_LEVEL: 'warn', PORT: String(PORT), OIDC_URL: url, WEB_CONCURRENCY: '1' },
      stdio: 'inherit',
    },
  );
  try {
    for (let i = 0; ; i++) {
      try {
        if ((await fetch(`${url}/readyz`)).ok) break;
      } catch {}
      if (i > 150) throw new Error('not ready');
      await new Promise((r) => setTimeout(r, 200));
    }
    // The OIDC case seeds through pnpm bench's own seeder (bench/oidc.ts): the real code exchange at /token.
    const oidc = SESSION ? undefined : await oidcRefreshSeeder(infra, url);
    const basic = oidc?.basic ?? '';
    const seed = oidc ? oidc.seedOne : await sessionSeeder(infra);
    const grant = async (token: string): Promise<string> => {
      const res = SESSION
        ? await fetch(`${url}/refresh`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ refreshToken: token }),
          })
        : await fetch(`${url}/token`, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic },
            body: `grant_type=refresh_token&refresh_token=${token}`,
          });
      const body = await res.text();
      if (res.status !== 200) throw new Error(`refresh ${res.status} ${body}`);
      const parsed = JSON.parse(body) as { refresh_token?: string; refreshToken?: string };
      return (parsed.refresh_token ?? parsed.refreshToken)!;
    };
    const run = async (grants: number) => {
      const tokens = await Promise.all(Array.from({ length: CHAINS }, seed));
      let left = grants;
      await Promise.all(
        tokens.map(async (t0) => {
          let t = t0;
          while (left-- > 0) t = await grant(t);
        }),
      );
    };
    await run(Math.min(500, N)); // warm-up: JIT, pools, prepared statements
    const dbName = new URL(process.env.DATABASE_URL!).pathname.slice(1);
    const backends = (
      await infra.db.$queryRawUnsafe<{ pid: number }[]>(
        `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`,
        dbName,
      )
    ).map((r) => r.pid);
    const hostBefore = cpuTicks(child.pid!);
    const pgBefore = backends.map(cpuTicks);
    const t0 = Date.now();
    await run(N);
    const wall = Date.now() - t0;
    const hostMs = ((cpuTicks(child.pid!) - hostBefore) * 1000) / TICK;
    const pgMs =
      (backends.map(cpuTicks).reduce((a, b) => a + b, 0) - pgBefore.reduce((a, b) => a + b, 0)) *
      (1000 / TICK);
    console.log(
      JSON.stringify({
        host: SESSION ? 'session /refresh' : 'oidc /token refresh',
        grants: N,
        chains: CHAINS,
        backends: backends.length,
        hostCoreMsPerGrant: +(hostMs / N).toFixed(3),
        pgCoreMsPerGrant: +(pgMs / N).toFixed(3),
        coreMsPerGrant: +((hostMs + pgMs) / N).toFixed(3),
        wallMs: wall,
      }),
    );
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
    await infra.close?.();
  }
}
main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
