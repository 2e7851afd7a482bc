// `pnpm start`: migrates, then starts every host that exists in services/ (naming those not built yet) plus the worker, each as its own
// process on its default port (or the port of its <HOST>_URL on this machine, fleet-config.ts), prefixing their log lines; outside production with no SMTP server configured it
// first starts the development mailbox (maildev) and points every host at it. Once every host's /readyz answers it
// says so in one line (and with `--demo`, which provisions the demo application first, prints how to sign in: up.sh).
// On a terminal the hosts' JSON log lines are shortened (fleet-log.ts). Stops them all on SIGINT/SIGTERM, or when
// the process that started it is gone; a stop during start-up starts nothing more and stops what was started.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { DEFAULT_PORTS, type HostName } from '@svc/platform';
import { runDemo } from './demo-provision';
import { type DevMailbox, startDevMailbox } from './dev-mailbox';
import { type FleetConfig, fleetConfigFromEnv } from './fleet-config';
import { fleetLine } from './fleet-log';

const root = path.resolve(__dirname, '..');
const HOSTS = ['session', 'native', 'connect', 'device', 'oidc', 'management', 'worker'];
/** How long the processes have to drain after SIGTERM before they are killed: a stop never leaves one running. */
const STOP_GRACE_MS = 15_000;
const pretty = Boolean(process.stdout.isTTY);
const withDemo = process.argv.slice(2).includes('--demo');

const say = (line: string) => process.stdout.write(`${line}\n`);

/** Every process started and not yet exited (the migration, the hosts, the worker): a stop ends each. */
const running = new Set<ChildProcess>();
let mailbox: DevMailbox | undefined;
let stopping = false;

// Listened for before anything starts, so a stop at any moment of start-up is heard.
process.on('SIGINT', () => stop());
process.on('SIGTERM', () => stop());
// `pnpm start` killed outright, or the terminal gone: this process is then someone else's child.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) stop();
}, 500).unref();

function track(child: ChildProcess): Promise<void> {
  running.add(child);
  return new Promise((resolve) => {
    child.once('exit', () => {
      running.delete(child);
      resolve();
    });
  });
}

/** Migrations first; the CLI's JSON result becomes one short line, and only when something was applied. */
async function migrate(): Promise<boolean> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'libs/db/src/migrate-cli.ts'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
  });
  await track(child);
  if (stopping) return false;
  if (child.exitCode !== 0) {
    process.stdout.write(out);
    process.exitCode = child.exitCode ?? 1;
    return false;
  }
  try {
    const { applied } = JSON.parse(out) as { applied: string[] };
    if (applied.length > 0) say(`[migrate] applied ${applied.join(', ')}`);
  } catch {
    process.stdout.write(out);
  }
  return true;
}

function readConfig(): FleetConfig | undefined {
  try {
    return fleetConfigFromEnv(process.env);
  } catch (err) {
    process.stderr.write(`pnpm start failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
    return undefined;
  }
}

async function main(): Promise<void> {
  if (!(await migrate())) return;
  const config = readConfig();
  if (!config) return;
  // The demo application, provisioned before the hosts start; its sign-in commands are printed once they answer.
  const demo = withDemo ? (await runDemo(process.env, { fleetRunning: true })).output : undefined;
  if (stopping) return;
  const hostEnv: NodeJS.ProcessEnv = { ...process.env, PORT: undefined };
  if (config.mailbox) {
    try {
      mailbox = await startDevMailbox({ ...config.mailbox });
    } catch (err) {
      if (stopping) return;
      process.stderr.write(`[mailbox] not started: ${err instanceof Error ? err.message : String(err)}\n`);
      return stop(1);
    }
    if (stopping) return;
    mailbox.child.on('exit', (code, signal) => {
      say(`[mailbox] exited (${signal ?? code})`);
      stop(1);
    });
    hostEnv.SMTP_URL = mailbox.smtpUrl;
    hostEnv.DEV_MAILBOX_URL = mailbox.webUrl;
    say(
      `[mailbox] development mailbox at ${mailbox.webUrl}/ (every code the fleet mails is there; SMTP ${mailbox.smtpUrl})`,
    );
  }
  const ports = startHosts(hostEnv, config);
  if (await untilReady(ports)) {
    say(
      `[fleet] ready: ${ports.map(([host, port]) => `${host} http://localhost:${port}/`).join(', ')} (Ctrl-C stops the fleet)`,
    );
    if (demo) process.stdout.write(demo);
  }
}

/** Starts each host that exists; answers the port of each one that serves HTTP (the worker does not). */
function startHosts(env: NodeJS.ProcessEnv, config: FleetConfig): [string, number][] {
  const ports: [string, number][] = [];
  for (const host of HOSTS) {
    if (stopping) break;
    const entry = path.join(root, 'services', host, 'src', 'main.ts');
    if (!existsSync(entry)) {
      // Not built yet: say so once instead of skipping silently; `pnpm start:<host>` fails for it.
      say(`[${host}] not started: not built yet (${path.relative(root, entry)} does not exist)`);
      continue;
    }
    const port = config.hostPorts[host as HostName];
    const child = spawn(process.execPath, ['--import', 'tsx', entry], {
      cwd: root,
      env: port === undefined ? env : { ...env, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    for (const stream of [child.stdout, child.stderr]) {
      readline.createInterface({ input: stream! }).on('line', (line) => say(fleetLine(host, line, pretty)));
    }
    void track(child);
    child.on('exit', (code, signal) => {
      say(`[${host}] exited (${signal ?? code})`);
      stop(1);
    });
    const served = port ?? DEFAULT_PORTS[host as HostName];
    if (served !== undefined) ports.push([host, served]);
  }
  return ports;
}

async function answersReady(port: number): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(2000) });
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
}

/** Waits until every host's /readyz answers 200 (true), or the fleet is stopping (false). */
async function untilReady(ports: [string, number][]): Promise<boolean> {
  while (!stopping) {
    const answers = await Promise.all(ports.map(([, port]) => answersReady(port)));
    if (answers.every(Boolean)) return !stopping;
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}

const started = main().catch((err: unknown) => {
  process.stderr.write(`pnpm start failed: ${err instanceof Error ? err.message : String(err)}\n`);
  stop(1);
});

function stop(code = 0): void {
  if (stopping) return;
  stopping = true;
  if (code !== 0) process.exitCode = code;
  for (const child of running) child.kill('SIGTERM');
  // Past the grace, whatever still runs is killed: the fleet never exits leaving a process of its own behind.
  const kill = setTimeout(() => {
    for (const child of running) child.kill('SIGKILL');
    mailbox?.child.kill('SIGKILL');
  }, STOP_GRACE_MS);
  kill.unref();
  // A step under way (the migration, the demo, the mailbox's start) finishes first and starts nothing more.
  void started.then(async () => {
    for (const child of running) child.kill('SIGTERM');
    await Promise.all([
      ...[...running].map(
        (c) =>
          new Promise((r) => (c.exitCode !== null || c.signalCode !== null ? r(null) : c.once('exit', r))),
      ),
      mailbox?.stop(),
    ]);
    clearTimeout(kill);
    process.exit();
  });
}
