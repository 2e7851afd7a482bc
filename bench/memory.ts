// `BENCH_ONLY=memory pnpm bench`: the memory of every host process as operators run it, built by `pnpm build` and
// started with `node dist/<host>/main.js` under its manifest's memory limit (bench/memory-limit.ts). RSS is read from /proc after the hosts settle (idle) and at the end
// of each host's own load scenario, together with the process's peak (VmHWM), against issue 16's targets. Every
// answer of a load is counted by status (and reason or OAuth error): a host answering anything its scenario does not
// expect has its figure refused, loudly, since a host failing fast is not the host under load.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { issuingConfigFromEnv } from '@svc/host';
import { issueSession } from '@svc/issuance';
import { createApplicationsStore } from '@svc/issuance/stores';
import { DEFAULT_PORTS, HOST_NAMES } from '@svc/platform';
import { createAccessKey } from '@svc/provisioning';
import { ensureBaselineTerms, openInfra, provisionAccount, provisionApp, testEnv } from '@svc/testkit';
import autocannon from 'autocannon';
import { buildAll } from '../scripts/build';
import { type Answers, answersLine, counting, unexpectedAnswers } from './answers';
import { seedCodes } from './device';
import { benchNode } from './hosts';
import { type MemoryLimit, manifestMemoryLimitMiB, memoryLimit } from './memory-limit';
import { oidcRefreshSeeder, refreshGrantRequest } from './oidc';

/** Issue 16's targets, MiB of RSS. */
export const MEMORY_TARGETS = {
  host: { idle: 120, load: 200 },
  worker: { idle: 150, load: 150 },
} as const;

const SETTLE_SECONDS = Number(process.env.BENCH_MEMORY_SETTLE_SECONDS ?? 10);
const LOAD_SECONDS = Number(process.env.BENCH_MEMORY_SECONDS ?? 15);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
/** Only these processes (BENCH_MEMORY_HOSTS=device,oidc), for looking at one host; all by default. */
const ONLY_HOSTS = process.env.BENCH_MEMORY_HOSTS?.split(',').map((h) => h.trim());
/** Extra node flags for every process (BENCH_MEMORY_NODE_ARGS, e.g. --heapsnapshot-signal=SIGUSR2), for diagnosis. */
const NODE_ARGS = process.env.BENCH_MEMORY_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
/** A signal sent to each loaded host right after its figure is read (BENCH_MEMORY_SIGNAL=SIGUSR2: a heap snapshot). */
const SIGNAL = process.env.BENCH_MEMORY_SIGNAL as NodeJS.Signals | undefined;
/** Pending device authorizations the device host's load polls round robin (BENCH_MEMORY_DEVICE_CODES). */
const DEVICE_CODES = Number(process.env.BENCH_MEMORY_DEVICE_CODES ?? 20_000);
/**
 * The memory limit each process runs under: `manifest` (default) its Kubernetes manifest's limit, a number of MiB
 * for all, or `none` (unlimited: V8 then sizes its heap from the machine's memory, as an unlimited process would).
 */
const LIMIT = process.env.BENCH_MEMORY_LIMIT ?? 'manifest';
function limitMiBOf(host: string): number | undefined {
  if (LIMIT === 'none') return undefined;
  return LIMIT === 'manifest' ? manifestMemoryLimitMiB(host) : Number(LIMIT);
}
const PORTS: Record<string, number> = {
  connect: 24201,
  native: 24202,
  session: 24203,
  device: 24204,
  oidc: 24205,
};

export interface ProcessMemory {
  host: string;
  idleMiB: number;
  loadMiB?: number;
  peakMiB: number;
  load?: string;
  requestsPerSec?: number;
  /** The host's own CPU per request over its load (user + system, all threads): holds when the machine is busy. */
  cpuMsPerRequest?: number;
  /** Every answer of the load: `200`, or a non-2xx status with its reason or OAuth error (`400 slow_down`). */
  answers?: Answers;
  /** Answers the scenario does not expect (non-2xx outside its list, connection errors, timeouts). */
  unexpected?: number;
  target: { idle: number; load: number };
  /** The memory limit the process ran under (`512 MiB cgroup`, or why it ran unlimited). */
  limit: string;
  /** Under both targets, and (for a loaded host) no unexpected answer. */
  met: boolean;
}

interface Started {
  host: string;
  child: ChildProcess;
  url?: string;
  limit: MemoryLimit;
}

/** VmRSS and VmHWM of a live process, MiB. */
function memoryOf(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
  return { rss: kib('VmRSS') / 1024, hwm: kib('VmHWM') / 1024 };
}

/** CPU time a process has used so far (user + system), ms, from /proc/<pid>/stat (clock ticks of 10 ms). */
function cpuMsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** The development KEK and subject secret the bench's own sessions are made with (testEnv leaves both unset). */
const BENCH_CONFIG = issuingConfigFromEnv('session', testEnv());

/**
 * The environment an orchestrator would give a built host (production, its secrets set: the bench's own, so the
 * tokens it issues verify), with no loader of the bench (tsx) carried over.
 */
function hostEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'production',
    KEY_ENCRYPTION_KEY: Buffer.from(BENCH_CONFIG.kekBytes).toString('base64'),
    SUBJECT_SECRET: BENCH_CONFIG.subjectSecret,
    LOG_LEVEL: 'warn',
    // Production has no local URL defaults; the bench's hosts keep the local ones.
    ...Object.fromEntries(
      HOST_NAMES.map((h) => [`${h.toUpperCase()}_URL`, `http://localhost:${DEFAULT_PORTS[h]}`]),
    ),
    ...extra,
  };
  delete env.NODE_OPTIONS;
  for (const name of Object.keys(env)) if (name.startsWith('TSX')) delete env[name];
  return env;
}

async function start(dir: string, host: string): Promise<Started> {
  const worker = host === 'worker';
  const env = worker
    ? hostEnv({
        // The worker's load: a sweep and a rotation tick every second for the whole bench.
        SWEEP_INTERVAL_SECONDS: '1',
        KEY_ROTATION_CHECK_SECONDS: '1',
        WORKER_QUEUE_PREFIX: `bench-mem-${process.pid}`,
        // Its readiness is its "worker started" line.
        LOG_LEVEL: 'info',
      })
    : hostEnv({
        PORT: String(PORTS[host]),
        NATIVE_RATE_ADDRESS_POINTS: '1000000000',
        NATIVE_RATE_CREDENTIAL_POINTS: '1000000000',
        DEVICE_RATE_AUTHORIZE_PER_ADDRESS: '1000000000',
        ...(host === 'oidc' ? { OIDC_URL: `http://127.0.0.1:${PORTS.oidc}` } : {}),
      });
  const limit = memoryLimit(`bench-memory-${process.pid}-${host}`, limitMiBOf(host));
  const run = limit.wrap(benchNode, [...NODE_ARGS, path.join(dir, host, 'main.js')]);
  const child = spawn(run.command, run.args, {
    cwd: path.join(dir, host),
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const url = worker ? undefined : `http://127.0.0.1:${PORTS[host]}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) {
      limit.remove();
      throw new Error(`${host} exited with ${child.exitCode}`);
    }
    if (worker ? out.includes('"msg":"worker started"') : await ready(url!)) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      limit.remove();
      throw new Error(`${host} did not become ready`);
    }
    await sleep(200);
  }
  // Logs are not measured: drop them from here on.
  child.stdout?.removeAllListeners('data');
  child.stdout?.resume();
  return { host, child, url, limit };
}

async function ready(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/readyz`)).ok;
  } catch {
    return false;
  }
}

/** A fresh refresh token for every request: each answer's new token goes back into the pool. */
function refreshTokenOf(body: string, member = 'refreshToken'): string {
  const key = `"${member}":"`;
  const start = body.indexOf(key) + key.length;
  return body.slice(start, body.indexOf('"', start));
}

export async function memoryScenario(): Promise<ProcessMemory[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-dist-'));
  const infra = openInfra();
  const started: Started[] = [];
  try {
    const hosts = await buildAll(dir);
    await ensureBaselineTerms(infra.db);
    const app = await provisionApp(infra, { methods: ['ACCESS_KEY_DIRECT'] });
    const application = (await createApplicationsStore(infra.db).loadApplication({ anchor: app.anchor }))!;
    const account = await provisionAccount(infra);
    const terms = await infra.db.agreementDocument.findFirst({ orderBy: { revision: 'desc' } });
    // The worker first: its rotation tick would otherwise race the hosts' first key load.
    for (const host of ['worker', ...hosts.filter((h) => h !== 'worker')]) {
      if (!ONLY_HOSTS || ONLY_HOSTS.includes(host)) started.push(await start(dir, host));
    }
    await sleep(SETTLE_SECONDS * 1000);
    const idle = new Map(started.map((s) => [s.host, memoryOf(s.child.pid!).rss]));

    /** Each host's load; `expected` lists the non-2xx answers (tally keys) that are part of it. */
    const loads: Record<
      string,
      { label: string; opts: () => Promise<autocannon.Options>; expected?: readonly string[] }
    > = {
      session: {
        label: 'POST /refresh (fresh token each) + /introspect + jwks.json',
        opts: async () => {
          const pool = await Promise.all(
            Array.from({ length: CONNECTIONS * 4 }, () =>
              issueSession(infra.issuance, {
                application,
                principal: { kind: 'ACCOUNT', accountId: account.id },
                authMethod: 'ACCESS_KEY_DIRECT',
              }),
            ),
          );
          const refresh = pool.map((c) => c.refreshToken);
          const access = pool.map((c) => c.accessToken);
          let k = 0;
          return {
            url: `http://127.0.0.1:${PORTS.session}`,
            requests: [
              {
                method: 'POST',
                path: '/refresh',
                headers: { 'content-type': 'application/json' },
                setupRequest: (req) => ({ ...req, body: JSON.stringify({ refreshToken: refresh.shift() }) }),
                onResponse: (status, body) => {
                  if (status === 200) refresh.push(refreshTokenOf(body));
                },
              },
              {
                method: 'POST',
                path: '/introspect',
                headers: { 'content-type': 'application/json' },
                setupRequest: (req) => ({
                  ...req,
                  body: JSON.stringify({ accessToken: access[k++ % access.length] }),
                }),
              },
              { method: 'GET', path: `/applications/${app.anchor}/jwks.json` },
            ],
          };
        },
      },
      native: {
        label: 'POST /direct-issue/access-key',
        opts: async () => {
          const key = await createAccessKey(infra.provisioning, {
            anchor: app.anchor,
            accountId: account.id,
          });
          return {
            url: `http://127.0.0.1:${PORTS.native}/direct-issue/access-key`,
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ applicationAnchor: app.anchor, ...key }),
          };
        },
      },
      connect: {
        label: 'GET /terms/{revision} (rendered page) + POST /info',
        opts: async () => ({
          url: `http://127.0.0.1:${PORTS.connect}`,
          requests: [
            { method: 'GET', path: `/terms/${terms?.revision ?? 1}` },
            {
              method: 'POST',
              path: '/info',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ applicationAnchor: app.anchor, locale: 'en-US' }),
            },
          ],
        }),
      },
      device: {
        label: 'POST /device-token (pending codes, round robin) x3 + POST /device-authorize',
        // A pending poll is a 400 by the spec; slow_down when the round robin comes back to a code within its
        // interval (more than codes / 5 s polls per second): the same one Redis script either way.
        expected: ['400 authorization_pending', '400 slow_down'],
        opts: async () => {
          const deviceApp = await provisionApp(infra, {
            methods: ['PASSKEY_USERNAMELESS'],
            returnMethods: ['DEVICE_CODE'],
          });
          const bodies = (await seedCodes(infra, deviceApp.anchor, DEVICE_CODES)).map((deviceCode) =>
            JSON.stringify({ deviceCode }),
          );
          let k = 0;
          const poll: autocannon.Request = {
            method: 'POST',
            path: '/device-token',
            headers: { 'content-type': 'application/json' },
            setupRequest: (req) => ({ ...req, body: bodies[k++ % bodies.length] }),
          };
          return {
            url: `http://127.0.0.1:${PORTS.device}`,
            requests: [
              poll,
              poll,
              poll,
              {
                method: 'POST',
                path: '/device-authorize',
                headers: { 'content-type': 'application/json' },
                body: JSON.stringify({ applicationAnchor: deviceApp.anchor }),
              },
            ],
          };
        },
      },
      oidc: {
        label: 'POST /token refresh grant (fresh token each) + discovery + jwks.json',
        opts: async () => {
          const { basic, seedOne } = await oidcRefreshSeeder(infra, `http://127.0.0.1:${PORTS.oidc}`);
          const pool: string[] = [];
          for (let i = 0; i < CONNECTIONS * 4; i += 16)
            pool.push(...(await Promise.all(Array.from({ length: 16 }, seedOne))));
          return {
            url: `http://127.0.0.1:${PORTS.oidc}`,
            requests: [
              refreshGrantRequest(basic, pool, refreshTokenOf, '/token'),
              { method: 'GET', path: '/.well-known/openid-configuration' },
              { method: 'GET', path: '/.well-known/jwks.json' },
            ],
          };
        },
      },
    };

    const results: ProcessMemory[] = [];
    const loaded = new Map<
      string,
      { rss: number; rps: number; cpuMs: number; answers: Answers; unexpected: number }
    >();
    for (const s of started) {
      const load = loads[s.host];
      if (!load) continue;
      const answers: Answers = {};
      const opts = counting(await load.opts(), answers);
      const cpuBefore = cpuMsOf(s.child.pid!);
      const r = await autocannon({
        ...opts,
        duration: LOAD_SECONDS,
        connections: CONNECTIONS,
      });
      const cpuMs = (cpuMsOf(s.child.pid!) - cpuBefore) / Math.max(1, r.requests.total);
      if (r.errors) answers.errors = r.errors;
      if (r.timeouts) answers.timeouts = r.timeouts;
      const unexpected = unexpectedAnswers(answers, load.expected);
      loaded.set(s.host, {
        rss: memoryOf(s.child.pid!).rss,
        rps: r.requests.average,
        cpuMs,
        answers,
        unexpected,
      });
      if (SIGNAL) {
        s.child.kill(SIGNAL);
        await sleep(10_000);
      }
    }
    for (const s of started) {
      const worker = s.host === 'worker';
      const target = worker ? MEMORY_TARGETS.worker : MEMORY_TARGETS.host;
      const now = memoryOf(s.child.pid!);
      const l = loaded.get(s.host);
      // The worker's load is its 1 s ticks over the whole bench: its figure under load is the last one.
      const loadMiB = l?.rss ?? (worker ? now.rss : undefined);
      const row: ProcessMemory = {
        host: s.host,
        idleMiB: idle.get(s.host)!,
        ...(loadMiB !== undefined ? { loadMiB } : {}),
        peakMiB: now.hwm,
        ...(loads[s.host] && l
          ? {
              load: loads[s.host]!.label,
              requestsPerSec: l.rps,
              cpuMsPerRequest: l.cpuMs,
              answers: l.answers,
              unexpected: l.unexpected,
            }
          : {}),
        ...(worker ? { load: 'a sweep and a rotation tick every second' } : {}),
        target: { idle: target.idle, load: target.load },
        limit: s.limit.label,
        met: idle.get(s.host)! < target.idle && (loadMiB ?? 0) < target.load && !l?.unexpected,
      };
      results.push(row);
      console.log(
        `memory ${s.host.padEnd(8)} idle ${row.idleMiB.toFixed(0).padStart(4)} MiB   under load ${row.loadMiB?.toFixed(0).padStart(4) ?? '   -'} MiB   peak ${row.peakMiB.toFixed(0).padStart(4)} MiB   (targets < ${target.idle} / < ${target.load}: ${row.met ? 'met' : 'NOT met'}; ${row.limit})${row.requestsPerSec ? `   ${row.requestsPerSec.toFixed(0)} req/s, ${row.cpuMsPerRequest?.toFixed(2)} core-ms/request` : ''}`,
      );
      if (l) {
        console.log(`         ${''.padEnd(8)} answers: ${answersLine(l.answers)}`);
        if (l.unexpected)
          console.log(
            `!! memory ${s.host}: FAILED, ${l.unexpected} unexpected answer(s) under load: the figure is not the host under its load (it was answering errors); find out why and run again`,
          );
      }
    }
    // A refused figure fails the bench's exit status too, not only its line.
    if (results.some((r) => r.unexpected)) process.exitCode = 1;
    return results;
  } finally {
    for (const s of started) {
      if (s.child.exitCode === null) {
        const exited = new Promise((r) => s.child.once('exit', r));
        s.child.kill('SIGTERM');
        await exited;
      }
      s.limit.remove();
    }
    await infra.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
