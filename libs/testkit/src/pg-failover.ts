// A private PostgreSQL primary and its streaming replica for the failover tests, from Debian's binaries
// (/usr/lib/postgresql/<version>/bin) on the engine ports, with their data under a temporary directory (never the
// machine's own instance), and one address the hosts connect to that an operator's failover moves (a VIP,
// HAProxy, a managed endpoint): a TCP forwarder pointed at the primary until `moveTo` names the promoted replica.
import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Engine } from './engines';
import { waitFor } from './engines';
import { dropTogether } from './fault-proxy';

function binDir(): string {
  const versions = readdirSync('/usr/lib/postgresql')
    .filter((v) => /^\d+$/.test(v))
    .sort((a, b) => Number(b) - Number(a));
  if (!versions[0])
    throw new Error('no PostgreSQL binaries under /usr/lib/postgresql (Debian postgresql-NN)');
  return `/usr/lib/postgresql/${versions[0]}/bin`;
}

/** PostgreSQL refuses to run as root: as root its tools run as the postgres user. */
function asOwner(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

function run(tool: string, args: string[], timeout = 60_000): string {
  return execFileSync(join(binDir(), tool), args, {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout,
    cwd: tmpdir(),
    ...asOwner(),
  });
}

function isReady(port: number): boolean {
  try {
    run('pg_isready', ['-q', '-h', '127.0.0.1', '-p', String(port)], 3000);
    return true;
  } catch {
    return false;
  }
}

function sql(port: number, statement: string, database = 'postgres'): string {
  return run('psql', [
    '-h',
    '127.0.0.1',
    '-p',
    String(port),
    '-U',
    'postgres',
    '-d',
    database,
    '-tAc',
    statement,
  ]);
}

/** Stops whatever a crashed earlier run left on `port` (only the engine ports): its data directory is asked. */
function clearPostgresPort(port: number): void {
  if (!isReady(port)) return;
  try {
    const dir = sql(port, 'SHOW data_directory').trim();
    run('pg_ctl', ['-D', dir, 'stop', '-m', 'immediate', '-w']);
  } catch {
    // Not ours to stop, or already gone.
  }
}

export interface PostgresServer {
  port: number;
  /** A crash: every backend ends at once, nothing is flushed beyond what was committed (pg_ctl -m immediate). */
  crash(): void;
  /** Whether the server takes writes (not in recovery). */
  isPrimary(): boolean;
}

function server(dir: string, port: number, settings: string[]): PostgresServer & { start(): Promise<void> } {
  const options = ['-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-k', dir, ...settings].join(' ');
  return {
    port,
    async start() {
      clearPostgresPort(port);
      run('pg_ctl', [
        '-D',
        join(dir, 'data'),
        '-l',
        join(dir, 'log'),
        '-o',
        options,
        'start',
        '-w',
        '-t',
        '60',
      ]);
      await waitFor(`postgres ${port}`, () => isReady(port), 30_000);
    },
    crash() {
      try {
        run('pg_ctl', ['-D', join(dir, 'data'), 'stop', '-m', 'immediate', '-w']);
      } catch {
        // Already stopped.
      }
    },
    isPrimary() {
      try {
        return sql(port, 'SELECT pg_is_in_recovery()').trim() === 'f';
      } catch {
        return false;
      }
    },
  };
}

export interface MovableEndpoint {
  port: number;
  /** `database` at the endpoint. */
  url(database: string): string;
  /** Resets every open connection and forwards new ones to `port` (an operator's failover moving the address). */
  moveTo(port: number): void;
  close(): Promise<void>;
}

/** A TCP forwarder on a free port of 127.0.0.1 to `target` on 127.0.0.1. */
export async function startMovableEndpoint(target: number): Promise<MovableEndpoint> {
  let to = target;
  const open = new Set<net.Socket>();
  const track = (s: net.Socket) => {
    open.add(s);
    s.once('close', () => open.delete(s));
  };
  const listener = net.createServer((client) => {
    track(client);
    const upstream = net.connect(to, '127.0.0.1');
    track(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    dropTogether(client, upstream);
  });
  await new Promise<void>((r) => listener.listen(0, '127.0.0.1', () => r()));
  const port = (listener.address() as net.AddressInfo).port;
  return {
    port,
    url: (database) => `postgresql://postgres@127.0.0.1:${port}/${database}`,
    moveTo(next) {
      to = next;
      for (const s of open) s.resetAndDestroy();
    },
    async close() {
      for (const s of open) s.destroy();
      await new Promise((r) => listener.close(r));
    },
  };
}

export interface PostgresPairEngine extends Engine {
  /** The server taking writes now. */
  readonly primary: PostgresServer;
  /** Its replica (none after a promotion, until `rebuildReplica`). */
  readonly replica: PostgresServer | undefined;
  /** Where the hosts connect: the first primary until the test moves it. */
  endpoint: MovableEndpoint;
  /** `database` on the endpoint (prepared before the replica was copied). */
  url: string;
  /** Promotes the replica and waits until it takes writes: it is the primary from then on. */
  promote(): Promise<void>;
  /**
   * A new replica of the primary on `port` (the runbook's last step after a failover): synchronous unless
   * `synchronous` says otherwise (by default, as the pair was started).
   */
  rebuildReplica(port: number, synchronous?: boolean): Promise<void>;
  /**
   * Waits until the replica has received (and flushed) everything the primary had written, then stops its WAL
   * receiver (`primary_conninfo` emptied): from then on what the primary commits exists only there, as when an
   * asynchronous replica falls behind. The caller holds its writes while this runs to know exactly which commits
   * the replica has.
   */
  cutReplication(): Promise<void>;
}

const COMMON = ['-c', 'fsync=off', '-c', 'max_connections=200', '-c', 'wal_level=replica'];

function ownedDir(dir: string): string {
  execFileSync('mkdir', ['-p', dir]);
  const owner = asOwner();
  if (owner.uid !== undefined) chownSync(dir, owner.uid, owner.gid ?? owner.uid);
  return dir;
}

/**
 * Copies `primary` into `dir` (pg_basebackup -R) and starts it on `port` streaming from it: the synchronous standby
 * (`synchronous_standby_names = '*'`), or an asynchronous one (none named: a commit is answered before the replica
 * has it).
 */
async function copyReplica(
  primary: PostgresServer,
  dir: string,
  port: number,
  synchronous: boolean,
): Promise<ServerIn> {
  run('pg_basebackup', [
    '-h',
    '127.0.0.1',
    '-p',
    String(primary.port),
    '-U',
    'postgres',
    '-D',
    join(ownedDir(dir), 'data'),
    '-R',
    '-X',
    'stream',
    // At once, not after a spread checkpoint (minutes on an idle server).
    '--checkpoint=fast',
    '--no-sync',
  ]);
  const replica = server(dir, port, COMMON);
  await replica.start();
  // ALTER SYSTEM, not a command-line setting, which would win over it (and which a promoted copy would not keep).
  sql(primary.port, `ALTER SYSTEM SET synchronous_standby_names = '${synchronous ? '*' : ''}'`);
  sql(primary.port, 'SELECT pg_reload_conf()');
  const state = synchronous ? 'sync' : 'async';
  await waitFor(`a streaming ${state} standby`, () =>
    sql(primary.port, "SELECT sync_state FROM pg_stat_replication WHERE state = 'streaming'")
      .split('\n')
      .includes(state),
  );
  return Object.assign(replica, { dir });
}

type ServerIn = ReturnType<typeof server> & { dir: string };

/**
 * A primary on `ports.primary` with `database` made and prepared by `prepare(url)` (migrations, fixtures), then a
 * replica copied from it (pg_basebackup -R) streaming on `ports.replica`, synchronously unless `synchronous` is
 * false: a commit is answered once the replica has it, so a promotion loses no answered write
 * (deploy/RUNBOOK-database-failover.md); an asynchronous replica can miss the last answered commits.
 */
export async function startPostgresPair(
  prepare: (url: string) => Promise<void>,
  opts: { ports?: { primary: number; replica: number }; database?: string; synchronous?: boolean } = {},
): Promise<PostgresPairEngine> {
  const synchronous = opts.synchronous ?? true;
  const ports = opts.ports ?? { primary: 17030, replica: 17031 };
  const database = opts.database ?? 'engines';
  const root = ownedDir(mkdtempSync(join(tmpdir(), 'engines-pg-')));
  let endpoint: MovableEndpoint | undefined;
  const started: PostgresServer[] = [];
  const stop = async () => {
    await endpoint?.close();
    for (const s of started) s.crash();
    rmSync(root, { recursive: true, force: true });
  };
  try {
    const primaryDir = ownedDir(join(root, `pg-${ports.primary}`));
    run('initdb', [
      '-D',
      join(primaryDir, 'data'),
      '-U',
      'postgres',
      '--auth=trust',
      '-E',
      'UTF8',
      '--no-sync',
    ]);
    // Synchronous commits wait for a standby: the primary is prepared without one, and asks for one once the
    // replica streams.
    let primary: ServerIn = Object.assign(server(primaryDir, ports.primary, COMMON), { dir: primaryDir });
    started.push(primary);
    await primary.start();
    sql(ports.primary, `CREATE DATABASE "${database}"`);
    endpoint = await startMovableEndpoint(ports.primary);
    await prepare(endpoint.url(database));
    let replica: ServerIn | undefined = await copyReplica(
      primary,
      join(root, `pg-${ports.replica}`),
      ports.replica,
      synchronous,
    );
    started.push(replica);
    const ep = endpoint;
    return {
      get primary() {
        return primary;
      },
      get replica() {
        return replica;
      },
      endpoint: ep,
      url: ep.url(database),
      async promote() {
        const next = replica;
        if (!next) throw new Error('no replica to promote');
        run('pg_ctl', ['-D', join(next.dir, 'data'), 'promote', '-w', '-t', '30']);
        await waitFor('the promoted replica takes writes', () => next.isPrimary(), 30_000);
        primary = next;
        replica = undefined;
      },
      async rebuildReplica(port, sync = synchronous) {
        replica = await copyReplica(primary, join(root, `pg-${port}`), port, sync);
        started.push(replica);
      },
      async cutReplication() {
        const from = primary;
        const to = replica;
        if (!to) throw new Error('no replica to cut');
        const written = sql(from.port, 'SELECT pg_current_wal_lsn()').trim();
        await waitFor(
          'the replica has what the primary wrote',
          () => sql(to.port, `SELECT pg_last_wal_receive_lsn() >= '${written}'::pg_lsn`).trim() === 't',
        );
        sql(to.port, "ALTER SYSTEM SET primary_conninfo = ''");
        sql(to.port, 'SELECT pg_reload_conf()');
        await waitFor(
          'the replica stopped receiving',
          () => sql(from.port, 'SELECT count(*) FROM pg_stat_replication').trim() === '0',
        );
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
