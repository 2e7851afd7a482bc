// Starts host processes for the benchmark exactly as `pnpm start:<host>` would, and waits until they are ready.
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(__dirname, '..');

/**
 * The node that runs the measured processes: BENCH_NODE when set (a path, e.g. /usr/bin/node for the Node 20 a
 * machine still has), else the bench's own. The load generator stays on the bench's node, so two runs that differ
 * only in BENCH_NODE compare the runtimes: `BENCH_NODE=/usr/bin/node pnpm bench` then `pnpm bench`, alternating.
 */
export const benchNode = process.env.BENCH_NODE || process.execPath;

export interface BenchHost {
  url: string;
  stop(): Promise<void>;
}

export function startHostProcess(
  host: string,
  port: number,
  env: Record<string, string> = {},
): Promise<BenchHost> {
  return startBenchProcess(host, `services/${host}/src/main.ts`, port, env);
}

/** Starts a TypeScript entry point (relative to the repository root) with tsx and waits for its /readyz. */
export async function startBenchProcess(
  host: string,
  entry: string,
  port: number,
  env: Record<string, string> = {},
): Promise<BenchHost> {
  const child: ChildProcess = spawn(
    benchNode,
    ['--import', 'tsx', ...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []), entry],
    {
      cwd: root,
      env: { ...process.env, LOG_LEVEL: 'warn', PORT: String(port), ...env },
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${host} exited with ${child.exitCode}`);
    try {
      const res = await fetch(`${url}/readyz`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${host} did not become ready`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/**
 * The worker (`pnpm start:worker`: services/worker/src/main.ts) with its real configuration plus `env`. It has no
 * HTTP port of its own, so it is ready at its `worker started` line (stdout, JSON); its warnings and errors are
 * passed on to stderr, the rest is dropped.
 */
export async function startWorkerProcess(env: Record<string, string> = {}): Promise<BenchHost> {
  const child: ChildProcess = spawn(
    benchNode,
    [
      '--import',
      'tsx',
      ...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
      'services/worker/src/main.ts',
    ],
    { cwd: root, env: { ...process.env, LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let started = false;
  const ready = new Promise<void>((resolve, reject) => {
    let buf = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      buf += chunk.toString('utf8');
      for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        let parsed: { msg?: string; level?: number } = {};
        try {
          parsed = JSON.parse(line);
        } catch {
          // not a log line
        }
        if (parsed.msg === 'worker started') {
          started = true;
          resolve();
        } else if ((parsed.level ?? 50) >= 40) console.error(`worker: ${line}`);
      }
    });
    child.once('exit', (code) => {
      if (!started) reject(new Error(`worker exited with ${code}`));
    });
    setTimeout(() => reject(new Error('worker did not start')), 60_000).unref();
  });
  await ready;
  return {
    url: '',
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
