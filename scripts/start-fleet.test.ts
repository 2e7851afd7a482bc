// `pnpm start` told to stop while it is still starting (#37): it starts nothing more and stops everything it started,
// the mailbox, every host and the worker, so no process of its group is left and no port of the fleet listens. The
// fleet runs as a person runs it (`pnpm start`, SIGTERM to pnpm alone), on free ports and a private database, in its
// own process group: a process it left behind keeps that group, even once it is nobody's child. And on a terminal
// (`script` gives it one) with `--demo`, as up.sh runs it: short log lines, then one ready line once every host
// answers /readyz, then the demo's commands with how to get the project's Node and pnpm in a second terminal.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import type { HostName } from '@svc/platform';
import { freePort, openPrivateDb, type PrivateDb, testEnv, uniqueName, waitUntil } from '@svc/testkit';

const ROOT = path.resolve(__dirname, '..');
const HOSTS: HostName[] = ['connect', 'native', 'session', 'device', 'oidc'];

interface Proc {
  pid: number;
  ppid: number;
  pgrp: number;
  session: number;
  cmd: string;
}

/** Every live process (zombies left out), from /proc. */
function processes(): Proc[] {
  const all: Proc[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The command name (field 2) may hold spaces and parentheses: the fields after it start past its last ')'.
      const [state, ppid, pgrp, session] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (state === 'Z') continue;
      const cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
      all.push({ pid: Number(entry), ppid: Number(ppid), pgrp: Number(pgrp), session: Number(session), cmd });
    } catch {
      // gone while we looked
    }
  }
  return all;
}

/**
 * The fleet's processes: its process group (the spawned command leads it) and the sessions its direct children
 * opened (`script` runs its command in a session of its own, on the terminal it makes).
 */
function members(leader: number, sessions: Set<number>): Proc[] {
  return processes().filter((p) => p.pgrp === leader || sessions.has(p.session));
}

/** Whether something accepts a connection on 127.0.0.1:`port`. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

let priv: PrivateDb;
let demoDir: string;
const fleets: ChildProcess[] = [];
beforeAll(async () => {
  priv = await openPrivateDb({ prefix: 'fleetstop' });
  demoDir = mkdtempSync(path.join(os.tmpdir(), 'fleet-stop-'));
}, 60_000);
afterAll(async () => {
  // Whatever a test left, its group goes (a failing run must not leave a fleet behind).
  for (const fleet of fleets) {
    const sessions = new Set(
      processes()
        .filter((p) => p.ppid === fleet.pid)
        .map((p) => p.session),
    );
    for (const p of members(fleet.pid!, sessions)) process.kill(p.pid, 'SIGKILL');
  }
  await priv.drop();
  rmSync(demoDir, { recursive: true, force: true });
}, 60_000);

/** The fleet on free ports, as `command` runs it (`pnpm start` by default), in a process group of its own. */
async function startFleet(command: string[] = ['pnpm', 'start']) {
  const ports = {} as Record<HostName | 'mailbox' | 'smtp', number>;
  for (const name of [...HOSTS, 'mailbox', 'smtp'] as const) {
    let port = await freePort();
    while (Object.values(ports).includes(port)) port = await freePort();
    ports[name] = port;
  }
  const { SMTP_URL: _url, SMTP_HOST: _host, PORT: _port, ...inherited } = process.env;
  const env = {
    ...inherited,
    ...testEnv({
      DATABASE_URL: priv.url,
      LOG_LEVEL: 'info',
      ...Object.fromEntries(HOSTS.map((h) => [`${h.toUpperCase()}_URL`, `http://localhost:${ports[h]}`])),
      DEV_MAILBOX_PORT: String(ports.mailbox),
      DEV_MAILBOX_SMTP_PORT: String(ports.smtp),
      RATE_LIMIT_NAMESPACE: uniqueName('fleet-stop-rl'),
      WORKER_QUEUE_NAME: uniqueName('fleet-stop-jobs'),
      DEMO_DIR: demoDir,
      EXAMPLE_PORT: String(await freePort()),
    }),
  };
  const child = spawn(command[0]!, command.slice(1), {
    cwd: ROOT,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  fleets.push(child);
  const lines: string[] = [];
  for (const stream of [child.stdout!, child.stderr!])
    readline.createInterface({ input: stream }).on('line', (l) => lines.push(l.replace(/\r$/, '')));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return { child, lines, exited, ports: Object.values(ports), hostPorts: ports };
}

/** SIGTERM to pnpm alone once `moment` holds, then: it exits, every process of the fleet is gone, no port listens. */
async function stopsEverything(
  moment: (lines: string[], running: Proc[]) => boolean,
  f: Awaited<ReturnType<typeof startFleet>> | undefined = undefined,
) {
  f ??= await startFleet();
  const fleet = f;
  const leader = fleet.child.pid!;
  await waitUntil(
    async () => moment(fleet.lines, members(leader, new Set())) || fleet.child.exitCode !== null,
    120_000,
  );
  expect(fleet.child.exitCode).toBeNull();
  const sessions = new Set(
    processes()
      .filter((p) => p.ppid === leader)
      .map((p) => p.session),
  );
  const started = members(leader, sessions);
  const pnpm = started.find((p) => /\bpnpm\b.*\bstart\b/.test(p.cmd) && !/^(script|\S*sh) /.test(p.cmd));
  expect(pnpm).toBeDefined();
  process.kill(pnpm!.pid, 'SIGTERM');
  await waitUntil(async () => members(leader, sessions).length === 0, 60_000).catch(() => undefined);
  const left = members(leader, sessions).map((p) => p.cmd);
  expect({ left, output: left.length ? fleet.lines.slice(-30) : [] }).toEqual({ left: [], output: [] });
  const open = [];
  for (const port of fleet.ports) if (await listening(port)) open.push(port);
  expect(open).toEqual([]);
  return fleet;
}

test('SIGTERM while the hosts are starting: every host, the worker and the mailbox are stopped', async () => {
  // The mailbox is up and the hosts have just been started; none of them listens yet.
  const f = await stopsEverything((lines) => lines.some((l) => l.includes('development mailbox at')));
  expect(f.lines.some((l) => / listening at /.test(l))).toBe(false);
}, 180_000);

test('SIGTERM while the mailbox is starting: nothing more is started, the mailbox is stopped', async () => {
  // maildev has been started and has not said it listens yet.
  const f = await stopsEverything(
    (lines, running) =>
      running.some((p) => p.cmd.includes('maildev')) &&
      !lines.some((l) => l.includes('development mailbox at')),
  );
  expect(f.lines.filter((l) => /^\[(connect|native|session|device|oidc|worker)\] /.test(l))).toEqual([]);
}, 180_000);

test('on a terminal with --demo (up.sh): short lines, one ready line once every host answers, then how to sign in', async () => {
  const f = await startFleet(['script', '-qec', 'pnpm -s start --demo', '/dev/null']);
  const ready = () => f.lines.findIndex((l) => l.startsWith('[fleet] ready: '));
  await stopsEverything(() => ready() >= 0 && f.lines.some((l) => l.includes('. scripts/use-node.sh')), f);
  const at = ready();
  // Every host answered /readyz before the line; it names each one.
  for (const host of HOSTS) {
    expect(f.lines[at]).toContain(`${host} http://localhost:${f.hostPorts[host]}/`);
    const listening = f.lines.findIndex((l) =>
      l.includes(`${host} listening at http://localhost:${f.hostPorts[host]}/`),
    );
    expect([host, listening >= 0 && listening < at]).toEqual([host, true]);
  }
  // Then the demo's commands, saying the fleet runs here and how the other terminal gets Node and pnpm.
  const after = f.lines.slice(at).join('\n');
  expect(after).toContain('the fleet is running in this terminal');
  expect(after).toContain('. scripts/use-node.sh');
  expect(after).toContain('pnpm device-login --app demo-app');
  // On a terminal, no host prints its JSON lines: one short line each.
  const hostLines = f.lines
    .slice(0, at)
    .filter((l) => /^\[(connect|native|session|device|oidc|worker)\] /.test(l));
  expect(hostLines.length).toBeGreaterThan(5);
  expect(hostLines.filter((l) => /^\[\w+\] \{/.test(l))).toEqual([]);
}, 240_000);
