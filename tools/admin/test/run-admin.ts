// Test support: runs the admin CLI's runCli in this process (or main.ts as a child process, as an operator would)
// and checks the one-JSON-line contract.
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { uniqueName } from '@svc/testkit';

export const ROOT = resolve(__dirname, '../../..');
const TSX = join(ROOT, 'node_modules/.bin/tsx');
const MAIN = 'tools/admin/src/main.ts';

export interface AdminRun {
  code: number;
  // biome-ignore lint/suspicious/noExplicitAny: CLI output is untyped JSON, checked by the assertions
  json: Record<string, any>;
  stdout: string;
  stderr: string;
}

/**
 * The environment of a run: the tests' own database and Redis, the development KEK asked for by name as a developer
 * would (the tool never falls back to it), then `env` (`KEY_ENCRYPTION_KEY: ''` runs it with no key at all).
 */
function adminEnv(env: Record<string, string>): Record<string, string | undefined> {
  return { KEY_ENCRYPTION_KEY: 'development', ...process.env, ...env };
}

/** The one-JSON-line contract: exactly one non-empty line on stdout, and it is JSON. */
function oneJsonLine(code: number, stdout: string, stderr: string): AdminRun {
  const lines = stdout.split('\n').filter((l) => l !== '');
  if (lines.length !== 1)
    throw new Error(`expected one JSON line, got ${lines.length}: ${stdout}\nstderr: ${stderr}`);
  try {
    return { code, json: JSON.parse(lines[0]!), stdout, stderr };
  } catch {
    throw new Error(`stdout is not JSON: ${stdout}`);
  }
}

/**
 * Spawns `tsx tools/admin/src/main.ts ...args` from the repository root, waits for it to exit and parses its single
 * JSON line: what main.ts adds to runCli (writing the line, the exit code, stderr). No time limit of its own: a
 * process start took 37 s on a loaded 2-core machine (1.9 s of CPU), so the test's timeout is the only bound.
 */
export function adminProcess(args: string[], env: Record<string, string> = {}): Promise<AdminRun> {
  return new Promise((done, fail) => {
    execFile(TSX, [MAIN, ...args], { cwd: ROOT, env: adminEnv(env) }, (err, stdout, stderr) => {
      // Killed from outside: say so, not "no JSON line".
      if (err?.killed) {
        fail(new Error(`admin ${args.join(' ')} was killed (${err.signal})\nstderr: ${stderr}`));
        return;
      }
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      try {
        done(oneJsonLine(code, stdout, stderr));
      } catch (e) {
        fail(e);
      }
    });
  });
}

/** Output of every in-process run under way: anything written to the process's streams or console meanwhile. */
const listening = new Set<{ out: string; err: string }>();
let restore: (() => void) | undefined;

/** Tees the process's stdout, stderr and console into every listening run while at least one is under way. */
function listen(run: { out: string; err: string }): () => void {
  listening.add(run);
  if (!restore) {
    const { stdout, stderr } = process;
    const [write, writeErr] = [stdout.write, stderr.write];
    const methods = ['log', 'info', 'debug', 'warn', 'error'] as const;
    const saved = methods.map((m) => console[m]);
    const tee = (key: 'out' | 'err') => (chunk: unknown) => {
      for (const r of listening) r[key] += String(chunk);
      return true;
    };
    stdout.write = tee('out') as typeof stdout.write;
    stderr.write = tee('err') as typeof stderr.write;
    methods.forEach((m, i) => {
      console[m] = (...args: unknown[]) => tee(i < 3 ? 'out' : 'err')(`${args.join(' ')}\n`);
    });
    restore = () => {
      stdout.write = write;
      stderr.write = writeErr;
      methods.forEach((m, i) => {
        console[m] = saved[i]!;
      });
      restore = undefined;
    };
  }
  return () => {
    listening.delete(run);
    if (listening.size === 0) restore?.();
  };
}

/**
 * Runs `pnpm admin ...args` as the CLI does, in this process: `runCli`, all that main.ts wraps (adminProcess covers
 * main.ts itself), checked for the one-JSON-line contract. No process start, so a loaded machine cannot time it
 * out. Whatever anything writes to this process's streams or console meanwhile counts as the run's output, as it
 * would in a child's.
 */
export async function admin(args: string[], env: Record<string, string> = {}): Promise<AdminRun> {
  // Loaded on first use: files that only spawn the CLI do not load its commands.
  const [{ runCli }, { createAdminContext }, { systemClock }] = await Promise.all([
    import('../src/cli'),
    import('../src/context'),
    import('@svc/platform'),
  ]);
  const stray = { out: '', err: '' };
  const stop = listen(stray);
  try {
    // The context main.ts makes, on the system clock as the process would be.
    const r = await runCli(args, adminEnv(env), (e) => createAdminContext(e, systemClock));
    return oneJsonLine(r.code, `${r.stdout}\n${stray.out}`, `${r.stderr}${stray.err}`);
  } finally {
    stop();
  }
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

/** An organization with one sector and one application `appName`, made through the CLI, named uniquely from `label`. */
export async function tenancyFixture(label: string, appName: string) {
  const orgName = uniqueName(`${label}Org`);
  const org = (await ok(['org', 'create', '--name', orgName])).id as string;
  const sector = (await ok(['sector', 'create', '--org', org, '--name', uniqueName(`${label}Sector`)]))
    .id as string;
  const anchor = uniqueName(label.toLowerCase());
  await ok(['app', 'create', '--sector', sector, '--anchor', anchor, '--name', `en-US=${appName}`]);
  return { orgName, org, sector, anchor };
}
