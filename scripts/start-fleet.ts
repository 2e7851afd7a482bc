// `pnpm start`: migrates, then starts every host that exists in services/ (naming those not built yet) plus the worker, each as its own
// process with its default port, prefixing their log lines; stops them all on SIGINT/SIGTERM.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';

const root = path.resolve(__dirname, '..');
const HOSTS = ['session', 'native', 'connect', 'device', 'oidc', 'worker'];

const migrated = spawnSync(process.execPath, ['--import', 'tsx', 'libs/db/src/migrate-cli.ts'], {
  cwd: root,
  stdio: 'inherit',
});
if (migrated.status !== 0) process.exit(migrated.status ?? 1);

const children: ChildProcess[] = [];
for (const host of HOSTS) {
  const entry = path.join(root, 'services', host, 'src', 'main.ts');
  if (!existsSync(entry)) {
    // Not built yet (device, oidc): say so once instead of skipping silently; `pnpm start:<host>` fails for it.
    process.stdout.write(
      `[${host}] not started: not built yet (${path.relative(root, entry)} does not exist)\n`,
    );
    continue;
  }
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    cwd: root,
    env: { ...process.env, PORT: undefined },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  for (const stream of [child.stdout, child.stderr]) {
    readline
      .createInterface({ input: stream! })
      .on('line', (line) => process.stdout.write(`[${host}] ${line}\n`));
  }
  child.on('exit', (code, signal) => {
    process.stdout.write(`[${host}] exited (${signal ?? code})\n`);
    if (!stopping) stop(1);
  });
  children.push(child);
}

let stopping = false;
function stop(code = 0): void {
  if (stopping) return;
  stopping = true;
  for (const c of children) c.kill('SIGTERM');
  setTimeout(() => process.exit(code), 10_000).unref();
  Promise.all(
    children.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r)))),
  ).then(() => process.exit(code));
}
process.on('SIGINT', () => stop());
process.on('SIGTERM', () => stop());
