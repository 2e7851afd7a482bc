// A host as a real child process (`node --import tsx <main>`), for tests that kill replicas: started on a free
// port, its JSON log lines kept, and signalled by its own pid only.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import path from 'node:path';
import { testEnv } from './config';

const ROOT = path.resolve(__dirname, '..', '..', '..');

export interface ChildHost {
  url: string;
  proc: ChildProcess;
  /** Resolves with the exit code, or the signal that ended the process. */
  exited: Promise<number | string | null>;
  /** Sends `signal` to this process and waits for it to end. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts `entry` (relative to the repository root) with `env` on a free port; resolves once it listens. */
export async function spawnHost(entry: string, env: Record<string, string> = {}): Promise<ChildHost> {
  // One process (node with the tsx loader), not the tsx CLI, whose child a SIGKILL of the CLI would orphan.
  const proc = spawn(process.execPath, ['--import', 'tsx', entry], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'info', PORT: '0', BIND_HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | string | null>((resolve) =>
    proc.once('exit', (code, signal) => resolve(code ?? signal)),
  );
  let stderr = '';
  proc.stderr?.on('data', (c: Buffer) => {
    stderr = (stderr + c.toString('utf8')).slice(-4000);
  });
  const port = await new Promise<number>((resolve, reject) => {
    let buf = '';
    // A ceiling (tsx compiles the host at start: at load 20 that took most of a minute). A host that has not
    // listened by then is killed, not left running after the test (one outlived its CI run by 40 minutes).
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`${entry} did not listen within 120 s: ${stderr}`));
    }, 120_000);
    proc.stdout?.on('data', (c: Buffer) => {
      buf += c.toString('utf8');
      for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        try {
          const parsed = JSON.parse(line) as { port?: number; msg?: string };
          if (parsed.port && / listening( at \S+)?$/.test(parsed.msg ?? '')) {
            clearTimeout(timer);
            resolve(parsed.port);
          }
        } catch {
          // not a JSON line
        }
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${entry} exited (${code}) before listening: ${stderr}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    proc,
    exited,
    async kill(signal = 'SIGTERM') {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      await exited;
    },
  };
}

/**
 * Ports handed out by freePort: below the kernel's ephemeral range (32768-60999), so no outgoing connection and no
 * listen(0) can take one between the choice and the child's listen (in CI one did, and a fleet failed to start
 * with EADDRINUSE). Each jest worker has its own block of 1,500 and walks it from a random start, so workers of one
 * run never hand out the same port, and a port is bound once here before it is handed out.
 */
const PORT_BLOCK = 1_500;
const PORT_BASE = 20_000;
const worker = (Number(process.env.JEST_WORKER_ID ?? '1') - 1) % 8;
let nextOffset = Math.floor(Math.random() * PORT_BLOCK);

const canListen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

/** A port free on 127.0.0.1 a moment ago, from this worker's block (never one it handed out recently). */
export async function freePort(): Promise<number> {
  for (let tried = 0; tried < PORT_BLOCK; tried++) {
    const port = PORT_BASE + worker * PORT_BLOCK + (nextOffset++ % PORT_BLOCK);
    if (await canListen(port)) return port;
  }
  throw new Error("no free port in this worker's block");
}

export interface ConnectProcess {
  /** http://localhost:PORT: the origin its passkeys are bound to. */
  url: string;
  child: ChildHost;
  close(): Promise<void>;
}

/**
 * The connect host (services/connect/src/main.ts) as a child process over this run's PostgreSQL and Redis, named
 * http://localhost:PORT, mailing to `smtpPort`, with its own rate-limit counters and no application cache.
 */
export async function startConnectProcess(opts: { smtpPort: number }): Promise<ConnectProcess> {
  // The port is chosen before the host starts (its URL, the passkeys' origin, names it), so another process on this
  // busy machine may take it in between: then the host cannot listen, and it starts again on another free port.
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const url = `http://localhost:${port}`;
    try {
      const child = await spawnHost('services/connect/src/main.ts', {
        ...testEnv({
          LOG_LEVEL: 'info',
          PORT: String(port),
          CONNECT_URL: url,
          WEBAUTHN_RP_NAME: 'Sign-in service (test)',
          MAIL_FROM: 'Sign-in test <no-reply@localhost>',
          SMTP_URL: `smtp://127.0.0.1:${opts.smtpPort}`,
          RATE_LIMIT_NAMESPACE: `connect-rl-${randomUUID()}`,
          APP_CACHE_TTL_MS: '0',
        }),
      } as Record<string, string>);
      return { url, child, close: () => child.kill('SIGTERM') };
    } catch (err) {
      if (attempt >= 5 || !String(err).includes('EADDRINUSE')) throw err;
    }
  }
}
