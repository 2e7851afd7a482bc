// A host as a real child process (`node --import tsx <main>`), for tests that kill replicas: started on a free
// port, its JSON log lines kept, and signalled by its own pid only.
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';

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
    const timer = setTimeout(() => reject(new Error(`${entry} did not listen: ${stderr}`)), 60_000);
    proc.stdout?.on('data', (c: Buffer) => {
      buf += c.toString('utf8');
      for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        try {
          const parsed = JSON.parse(line) as { port?: number; msg?: string };
          if (parsed.port && parsed.msg?.endsWith('listening')) {
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
