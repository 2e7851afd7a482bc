// `pnpm start`: migrates, then starts every host that exists in services/ (naming those not built yet) plus the worker, each as its own
// process on its default port (or the port of its <HOST>_URL on this machine, fleet-config.ts), prefixing their log lines; outside production with no SMTP server configured it
// first starts the development mailbox (maildev) and points every host at it. Stops them all on SIGINT/SIGTERM.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { type DevMailbox, startDevMailbox } from './dev-mailbox';
import { fleetConfigFromEnv } from './fleet-config';

const root = path.resolve(__dirname, '..');
const HOSTS = ['session', 'native', 'connect', 'device', 'oidc', 'worker'];

// Migrations first; the CLI's JSON result becomes one short line, and only when something was applied (a start on a
// migrated database says nothing). A failure passes its own sentence through.
const migrated = spawnSync(process.execPath, ['--import', 'tsx', 'libs/db/src/migrate-cli.ts'], {
  cwd: root,
  stdio: ['ignore', 'pipe', 'inherit'],
  encoding: 'utf8',
});
if (migrated.status !== 0) {
  process.stdout.write(migrated.stdout ?? '');
  process.exit(migrated.status ?? 1);
}
try {
  const { applied } = JSON.parse(migrated.stdout) as { applied: string[] };
  if (applied.length > 0) process.stdout.write(`[migrate] applied ${applied.join(', ')}\n`);
} catch {
  process.stdout.write(migrated.stdout);
}

const config = (() => {
  try {
    return fleetConfigFromEnv(process.env);
  } catch (err) {
    process.stderr.write(`pnpm start failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
})();

const children: ChildProcess[] = [];
let mailbox: DevMailbox | undefined;

async function main(): Promise<void> {
  const hostEnv: NodeJS.ProcessEnv = { ...process.env, PORT: undefined };
  if (config.mailbox) {
    mailbox = await startDevMailbox({ ...config.mailbox }).catch((err: unknown) => {
      process.stderr.write(`[mailbox] not started: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    });
    mailbox.child.on('exit', (code, signal) => {
      process.stdout.write(`[mailbox] exited (${signal ?? code})\n`);
      if (!stopping) stop(1);
    });
    hostEnv.SMTP_URL = mailbox.smtpUrl;
    hostEnv.DEV_MAILBOX_URL = mailbox.webUrl;
    process.stdout.write(
      `[mailbox] development mailbox at ${mailbox.webUrl}/ (every code the fleet mails is there; SMTP ${mailbox.smtpUrl})\n`,
    );
  }
  startHosts(hostEnv);
}

function startHosts(env: NodeJS.ProcessEnv): void {
  for (const host of HOSTS) {
    const entry = path.join(root, 'services', host, 'src', 'main.ts');
    if (!existsSync(entry)) {
      // Not built yet (device, oidc): say so once instead of skipping silently; `pnpm start:<host>` fails for it.
      process.stdout.write(
        `[${host}] not started: not built yet (${path.relative(root, entry)} does not exist)\n`,
      );
      continue;
    }
    const port = config.hostPorts[host as keyof typeof config.hostPorts];
    const child = spawn(process.execPath, ['--import', 'tsx', entry], {
      cwd: root,
      env: port === undefined ? env : { ...env, PORT: String(port) },
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
}

let stopping = false;
function stop(code = 0): void {
  if (stopping) return;
  stopping = true;
  for (const c of children) c.kill('SIGTERM');
  setTimeout(() => process.exit(code), 10_000).unref();
  Promise.all([
    ...children.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r)))),
    mailbox?.stop(),
  ]).then(() => process.exit(code));
}
process.on('SIGINT', () => stop());
process.on('SIGTERM', () => stop());
void main();
