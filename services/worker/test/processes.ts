// Child processes for the multi-process tests: spawn a tsx entry point with extra env, read its JSON stdout lines,
// wait for conditions, and kill it (by its own pid only).
import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '..', '..', '..');

export interface Child {
  proc: ChildProcess;
  lines: unknown[];
  stderr: string[];
  exited: Promise<number | null>;
  waitFor<T>(pred: (line: unknown) => T | undefined, timeoutMs?: number): Promise<T>;
  kill(signal?: NodeJS.Signals): Promise<number | null>;
}

export function spawnTsx(entry: string, env: Record<string, string>, args: string[] = []): Child {
  // One process (node with the tsx loader), not the tsx CLI, which would run the program in a child that a
  // SIGKILL of the CLI leaves orphaned.
  const proc = spawn(process.execPath, ['--import', 'tsx', entry, ...args], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: 'test', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: unknown[] = [];
  const stderr: string[] = [];
  const waiters = new Set<() => void>();
  let buf = '';
  proc.stdout?.on('data', (chunk: Buffer) => {
    buf += chunk.toString('utf8');
    let i = buf.indexOf('\n');
    while (i >= 0) {
      const line = buf.slice(0, i).trim();
      buf = buf.slice(i + 1);
      if (line) {
        try {
          lines.push(JSON.parse(line));
        } catch {
          lines.push(line);
        }
      }
      i = buf.indexOf('\n');
    }
    for (const w of waiters) w();
  });
  proc.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  return {
    proc,
    lines,
    stderr,
    exited,
    waitFor(pred, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          for (const l of lines) {
            const v = pred(l);
            if (v !== undefined) {
              waiters.delete(check);
              clearTimeout(timer);
              resolve(v);
              return;
            }
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `timed out waiting on ${entry}: ${JSON.stringify(lines.slice(-20))} ${stderr.join('').slice(-2000)}`,
            ),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async kill(signal = 'SIGTERM') {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      return exited;
    },
  };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}
