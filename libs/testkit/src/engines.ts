// Real engines for the distributed-engine tests, started from Debian's packages on the ports 17000-17199 with
// their data under a temporary directory (never the default 5432/6379 instances): a three-master Redis Cluster
// (with or without a replica per master), a Redis primary with a replica watched by Sentinel, and PgBouncer in
// transaction mode before PostgreSQL.
// scripts/test.sh installs the packages when missing (redis-server, redis-sentinel, pgbouncer).
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Engine {
  stop(): Promise<void>;
}

/** Waits until `ready()` holds, polling every 100 ms, at most `ms`. */
export async function waitFor(
  what: string,
  ready: () => boolean | Promise<boolean>,
  ms = 20_000,
): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    if (await (async () => ready())().catch(() => false)) return;
    if (Date.now() > until) throw new Error(`${what} not ready within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function cli(port: number, ...args: string[]): string {
  try {
    return execFileSync('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 5000,
    });
  } catch (err) {
    const e = err as { stderr?: string; stdout?: string; signal?: string; status?: number };
    throw new Error(
      `redis-cli -p ${port} ${args.join(' ')}: status ${e.status} ${e.signal ?? ''} ${e.stdout ?? ''} ${e.stderr ?? ''}`.trim(),
    );
  }
}

/** Whether the server on `port` is a replica whose link to its primary is up. */
function replicating(port: number): boolean {
  const info = cli(port, 'info', 'replication');
  return info.includes('role:slave') && info.includes('master_link_status:up');
}

/** Ends whatever a crashed earlier run left listening on `port` (only on the engine ports). */
function clearRedisPort(port: number): void {
  try {
    cli(port, 'shutdown', 'nosave');
  } catch {
    // Nothing there.
  }
}

function startProcess(cmd: string, args: string[]): ChildProcess {
  const child = spawn(cmd, args, { stdio: 'ignore' });
  child.on('error', () => undefined);
  return child;
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGKILL');
  await gone;
}

export interface RedisServer extends Engine {
  port: number;
  /** SIGKILLs the server (a crash); `restart()` brings it back on the same port and directory. */
  kill(): Promise<void>;
  restart(): Promise<void>;
  /**
   * SIGSTOP: the server answers nothing and acknowledges no replication, its connections stay open (a hung node);
   * `resume()` SIGCONTs it.
   */
  pause(): void;
  resume(): void;
}

async function redisServer(dir: string, port: number, extra: string[]): Promise<RedisServer> {
  clearRedisPort(port);
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    '--appendonly',
    'no',
  ];
  let child = startProcess('redis-server', [...args, ...extra]);
  await waitFor(`redis ${port}`, () => cli(port, 'ping').trim() === 'PONG');
  return {
    port,
    async kill() {
      await stopProcess(child);
    },
    async restart() {
      child = startProcess('redis-server', [...args, ...extra]);
      await waitFor(`redis ${port}`, () => cli(port, 'ping').trim() === 'PONG');
    },
    pause() {
      child.kill('SIGSTOP');
    },
    resume() {
      child.kill('SIGCONT');
    },
    async stop() {
      await stopProcess(child);
    },
  };
}

export interface RedisClusterEngine extends Engine {
  /** `REDIS_CLUSTER_NODES` for the hosts (every node, replicas too). */
  nodes: string;
  /** The masters as started, then their replicas (each the replica of the master at its index modulo the masters). */
  servers: RedisServer[];
  /** The port of the master that serves `key`'s slot as the live node on `askPort` sees it (none: undefined). */
  masterFor(key: string, askPort?: number): number | undefined;
  /** The port of the replica that follows the master on `port` (undefined when none is connected). */
  replicaOf(port: number): number | undefined;
  /**
   * Whether `port` is a master taking writes for `key`'s slot as every other live node in `live` sees it, and each
   * of them says the cluster is ok: a promotion the hosts' next slot refresh will find wherever they ask.
   */
  serves(port: number, key: string, live: number[]): boolean;
  /** Whether the node on `port` says the cluster is ok (every slot served). */
  isOk(port: number): boolean;
  /** Whether the server on `port` is a replica whose link to its master is up (a restarted master rejoins so). */
  replicating(port: number): boolean;
  /** `CLUSTER FAILOVER` on the replica on `port`: a planned switch (its master is demoted once it caught up). */
  failover(port: number): void;
}

/** Options of `startRedisCluster`. */
export interface RedisClusterOptions {
  /** The masters' ports, then (with `replicasPerMaster`) the replicas'. */
  ports?: number[];
  /** The cluster bus ports, one per port (the default port + 10000 is outside the engine range). */
  busPorts?: number[];
  /** 0 (the default) or 1: each master gets a replica that Redis promotes when the master fails. */
  replicasPerMaster?: 0 | 1;
  /** `cluster-node-timeout`: a node unreachable this long is failing; a replica takes over soon after. */
  nodeTimeoutMs?: number;
}

/** Three masters, each owning a third of the slots, and with `replicasPerMaster: 1` a replica for each. */
export async function startRedisCluster(opts: RedisClusterOptions = {}): Promise<RedisClusterEngine> {
  const {
    ports = [17000, 17001, 17002],
    busPorts = [17050, 17051, 17052],
    replicasPerMaster = 0,
    nodeTimeoutMs = 2000,
  } = opts;
  const root = mkdtempSync(join(tmpdir(), 'engines-cluster-'));
  const servers: RedisServer[] = [];
  const stop = async () => {
    for (const s of servers) await s.stop();
    rmSync(root, { recursive: true, force: true });
  };
  try {
    for (const [i, port] of ports.entries()) {
      servers.push(await clusterNode(root, port, busPorts[i]!, nodeTimeoutMs));
    }
    await formCluster(ports, replicasPerMaster);
  } catch (err) {
    await stop();
    throw err;
  }
  const masterFor = (key: string, askPort = ports[0]!) => {
    const slot = Number(cli(askPort, 'cluster', 'keyslot', key).trim());
    return clusterNodes(askPort).find(
      (n) => n.master && !n.failed && n.slots.some(([a, b]) => a <= slot && slot <= b),
    )?.port;
  };
  return {
    nodes: ports.map((p) => `127.0.0.1:${p}`).join(','),
    servers,
    masterFor,
    replicaOf(port) {
      const line = /slave0:ip=[^,]+,port=(\d+),state=online/.exec(cli(port, 'info', 'replication'));
      return line ? Number(line[1]) : undefined;
    },
    serves(port, key, live) {
      if (!cli(port, 'role').startsWith('master')) return false;
      return live.every(
        (at) => cli(at, 'cluster', 'info').includes('cluster_state:ok') && masterFor(key, at) === port,
      );
    },
    isOk: (port) => cli(port, 'cluster', 'info').includes('cluster_state:ok'),
    replicating,
    failover(port) {
      cli(port, 'cluster', 'failover');
    },
    stop,
  };
}

async function clusterNode(root: string, port: number, busPort: number, nodeTimeoutMs: number) {
  const dir = join(root, String(port));
  execFileSync('mkdir', ['-p', dir]);
  return redisServer(dir, port, [
    '--cluster-enabled',
    'yes',
    '--cluster-config-file',
    join(dir, 'nodes.conf'),
    '--cluster-node-timeout',
    String(nodeTimeoutMs),
    '--cluster-port',
    String(busPort),
  ]);
}

interface ClusterNode {
  port: number;
  master: boolean;
  failed: boolean;
  /** The slot ranges it serves (inclusive). */
  slots: [number, number][];
}

/** `CLUSTER NODES` as the node on `port` sees the cluster (migrating slots, in brackets, left out). */
function clusterNodes(port: number): ClusterNode[] {
  return cli(port, 'cluster', 'nodes')
    .trim()
    .split('\n')
    .map((line) => {
      const [, address = '', flags = '', , , , , , ...slots] = line.trim().split(' ');
      return {
        port: Number(address.split('@')[0]?.split(':')[1]),
        master: flags.split(',').includes('master'),
        failed: /fail/.test(flags),
        slots: slots
          .filter((s) => !s.startsWith('['))
          .map((s) => {
            const [a, b = a] = s.split('-').map(Number);
            return [a, b] as [number, number];
          }),
      };
    });
}

/**
 * `redis-cli --cluster create` (the first third of `ports` become masters when there are replicas), then waits until
 * every node says the cluster is ok and, with replicas, sees every master with slots and a replica whose link is up.
 */
async function formCluster(ports: number[], replicasPerMaster: number): Promise<void> {
  execFileSync(
    'redis-cli',
    [
      '--cluster',
      'create',
      ...ports.map((p) => `127.0.0.1:${p}`),
      '--cluster-replicas',
      String(replicasPerMaster),
      '--cluster-yes',
    ],
    { stdio: 'ignore', timeout: 30_000 },
  );
  const masters = ports.length / (1 + replicasPerMaster);
  for (const port of ports) {
    await waitFor(`cluster ${port}`, () => {
      if (!cli(port, 'cluster', 'info').includes('cluster_state:ok')) return false;
      const seen = clusterNodes(port);
      const serving = seen.filter((n) => n.master && n.slots.length > 0).length;
      const info = cli(port, 'info', 'replication');
      const linked = info.includes('role:master') || info.includes('master_link_status:up');
      return serving === masters && seen.length === ports.length && linked;
    });
  }
}

export interface SentinelEngine extends Engine {
  /** `REDIS_SENTINELS` and `REDIS_SENTINEL_MASTER` for the hosts. */
  sentinels: string;
  master: string;
  primary: RedisServer;
  replica: RedisServer;
  /** The port Sentinel names as the primary now. */
  primaryPort(): number;
  /** Whether the server on `port` is a replica whose link to its primary is up. */
  replicating(port: number): boolean;
  /** `SENTINEL FAILOVER`: a planned switch to a replica (the primary is demoted, not lost). */
  failover(): void;
}

/** A primary, its replica and one Sentinel (quorum 1, a primary is down after 1 s). */
export async function startSentinel(ports = { primary: 17010, replica: 17011, sentinel: 17012 }) {
  const root = mkdtempSync(join(tmpdir(), 'engines-sentinel-'));
  const primary = await redisServer(root, ports.primary, ['--dbfilename', 'p.rdb']);
  const replica = await redisServer(root, ports.replica, [
    '--dbfilename',
    'r.rdb',
    '--replicaof',
    '127.0.0.1',
    String(ports.primary),
  ]);
  clearRedisPort(ports.sentinel);
  const master = 'engines';
  const conf = join(root, 'sentinel.conf');
  writeFileSync(
    conf,
    [
      `port ${ports.sentinel}`,
      'bind 127.0.0.1',
      `dir ${root}`,
      `sentinel monitor ${master} 127.0.0.1 ${ports.primary} 1`,
      `sentinel down-after-milliseconds ${master} 1000`,
      `sentinel failover-timeout ${master} 5000`,
      `sentinel parallel-syncs ${master} 1`,
      '',
    ].join('\n'),
  );
  const sentinel = startProcess('redis-sentinel', [conf]);
  await waitFor('sentinel', () =>
    cli(ports.sentinel, 'sentinel', 'replicas', master).includes(String(ports.replica)),
  );
  const engine: SentinelEngine = {
    sentinels: `127.0.0.1:${ports.sentinel}`,
    master,
    primary,
    replica,
    primaryPort() {
      const out = cli(ports.sentinel, 'sentinel', 'get-master-addr-by-name', master).trim().split('\n');
      return Number(out[1]);
    },
    replicating,
    failover() {
      cli(ports.sentinel, 'sentinel', 'failover', master);
    },
    async stop() {
      await stopProcess(sentinel);
      await primary.stop();
      await replica.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
  return engine;
}

export interface PgBouncerEngine extends Engine {
  port: number;
  /** `database` through PgBouncer. */
  url(database: string): string;
  /**
   * Points every database at `target` (host:port) and reloads (SIGHUP, what `RELOAD` does): an operator moving
   * PgBouncer to a promoted primary. The reload is asynchronous: the caller waits for what it needs.
   */
  repoint(target: { host: string; port: number }): void;
}

function bouncerIni(
  root: string,
  target: { host: string; port: number },
  port: number,
  serverLoginRetry: number,
): string {
  return [
    '[databases]',
    `* = host=${target.host} port=${target.port} user=postgres`,
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    'unix_socket_dir =',
    'auth_type = any',
    'pool_mode = transaction',
    'max_client_conn = 500',
    'default_pool_size = 20',
    'server_reset_query =',
    'ignore_startup_parameters = extra_float_digits',
    // After a failed server login PgBouncer refuses clients for this long (15 s by default) before it connects
    // again: deploy/RUNBOOK-database-failover.md sets it low so a re-pointed PgBouncer takes the new primary at once.
    `server_login_retry = ${serverLoginRetry}`,
    `logfile = ${join(root, 'pgbouncer.log')}`,
    `pidfile = ${join(root, 'pgbouncer.pid')}`,
    '',
  ].join('\n');
}

function pgReadyAt(port: number): boolean {
  try {
    execFileSync('pg_isready', ['-q', '-h', '127.0.0.1', '-p', String(port)], { timeout: 3000 });
    return true;
  } catch {
    return false;
  }
}

/**
 * PgBouncer 1.18 in transaction pooling mode on `port`, before the PostgreSQL at `target` (host:port), with
 * `server_login_retry` at `serverLoginRetry` seconds (the runbook's 1 unless a test measures another).
 */
export async function startPgBouncer(
  target = { host: '127.0.0.1', port: 5432 },
  port = 17020,
  serverLoginRetry = 1,
) {
  const root = mkdtempSync(join(tmpdir(), 'engines-pgbouncer-'));
  // PgBouncer refuses to run as root; as root it is started as postgres, which must read its directory.
  chmodSync(root, 0o777);
  const ini = join(root, 'pgbouncer.ini');
  writeFileSync(ini, bouncerIni(root, target, port, serverLoginRetry));
  chmodSync(ini, 0o644);
  const asRoot = process.getuid?.() === 0;
  const child = startProcess('pgbouncer', asRoot ? ['-u', 'postgres', ini] : [ini]);
  try {
    await waitFor('pgbouncer', () => pgReadyAt(port));
  } catch (err) {
    await stopProcess(child);
    rmSync(root, { recursive: true, force: true });
    throw err;
  }
  return {
    port,
    url: (database: string) => `postgresql://postgres@127.0.0.1:${port}/${database}`,
    repoint(next) {
      writeFileSync(ini, bouncerIni(root, next, port, serverLoginRetry));
      child.kill('SIGHUP');
    },
    async stop() {
      await stopProcess(child);
      rmSync(root, { recursive: true, force: true });
    },
  } satisfies PgBouncerEngine;
}
