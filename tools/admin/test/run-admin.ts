// Test support: runs the real CLI as a child process (as an operator would) and checks the one-JSON-line contract.
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const ROOT = resolve(__dirname, '../../..');
const TSX = join(ROOT, 'node_modules/.bin/tsx');
const MAIN = 'tools/admin/src/main.ts';
/** Below jest's 30 s per test, so a hung CLI is reported as such. */
const TIMEOUT_MS = 25_000;

export interface AdminRun {
  code: number;
  // biome-ignore lint/suspicious/noExplicitAny: CLI output is untyped JSON, checked by the assertions
  json: Record<string, any>;
  stdout: string;
  stderr: string;
}

/** Spawns `tsx tools/admin/src/main.ts ...args` from the repository root and parses its single JSON line. */
export function admin(args: string[], env: Record<string, string> = {}): Promise<AdminRun> {
  return new Promise((done, fail) => {
    execFile(
      TSX,
      [MAIN, ...args],
      { cwd: ROOT, env: { ...process.env, ...env }, timeout: TIMEOUT_MS },
      (err, stdout, stderr) => {
        // Killed at the timeout (a loaded machine can take that long to start tsx): say so, not "no JSON line".
        if (err?.killed) {
          fail(new Error(`admin ${args.join(' ')} was killed after ${TIMEOUT_MS} ms\nstderr: ${stderr}`));
          return;
        }
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        const lines = stdout.split('\n').filter((l) => l !== '');
        if (lines.length !== 1) {
          fail(new Error(`expected one JSON line, got ${lines.length}: ${stdout}\nstderr: ${stderr}`));
          return;
        }
        try {
          done({ code, json: JSON.parse(lines[0]!), stdout, stderr });
        } catch {
          fail(new Error(`stdout is not JSON: ${stdout}`));
        }
      },
    );
  });
}

/** Like admin(), but insists on success and returns the JSON. */
// biome-ignore lint/suspicious/noExplicitAny: CLI output is untyped JSON, checked by the assertions
export async function ok(args: string[], env: Record<string, string> = {}): Promise<Record<string, any>> {
  const r = await admin(args, env);
  if (r.code !== 0) throw new Error(`admin ${args.join(' ')} exited ${r.code}: ${r.stdout}`);
  return r.json;
}

/** Writes JSON to a fresh temporary file and returns its path. */
export function jsonFile(value: unknown, name = 'file.json'): string {
  const dir = mkdtempSync(join(tmpdir(), 'admin-test-'));
  const path = join(dir, name);
  writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value));
  return path;
}
