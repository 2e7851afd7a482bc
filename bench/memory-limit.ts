// The memory bench's processes under the memory limit they are deployed with: each host in a cgroup of its own,
// limited as its Kubernetes manifest limits it (`limits: { memory: ... }`), as the kubelet and systemd's MemoryMax do.
// It matters on Node 22+: V8 sizes its heap (and its young generation) from the memory the process may use, so a
// host on an unconstrained 24 GiB machine keeps a 32 MiB young generation that a pod limited to 512 Mi never has.
import { mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.join(__dirname, '..');
const CGROUP_FS = '/sys/fs/cgroup';

/** The memory limit of a host's manifest (deploy/k8s/base/<host>/deployment.yaml), MiB. */
export function manifestMemoryLimitMiB(host: string): number {
  const manifest = readFileSync(path.join(ROOT, 'deploy/k8s/base', host, 'deployment.yaml'), 'utf8');
  const limit = /limits:\s*\{\s*memory:\s*(\d+)(Mi|Gi)\s*\}/.exec(manifest);
  if (!limit) throw new Error(`deploy/k8s/base/${host}/deployment.yaml has no memory limit`);
  return Number(limit[1]) * (limit[2] === 'Gi' ? 1024 : 1);
}

export interface MemoryLimit {
  /** What the bench prints: `512 MiB cgroup` or why the processes run unlimited. */
  label: string;
  /** Wraps a command so that it runs inside the limited cgroup (the same pid: `sh` execs it). */
  wrap(command: string, args: string[]): { command: string; args: string[] };
  remove(): void;
}

/** This process's own memory cgroup directory (cgroup v2's unified path, or v1's memory controller), if writable. */
function ownMemoryCgroup(): { dir: string; limitFile: string } | undefined {
  const lines = readFileSync('/proc/self/cgroup', 'utf8').split('\n');
  const v1 = lines.find((l) => /^\d+:memory:/.test(l));
  if (v1)
    return { dir: path.join(CGROUP_FS, 'memory', v1.split(':')[2]!), limitFile: 'memory.limit_in_bytes' };
  const v2 = lines.find((l) => l.startsWith('0::'));
  if (v2) return { dir: path.join(CGROUP_FS, v2.slice(3)), limitFile: 'memory.max' };
  return undefined;
}

/**
 * A cgroup limited to `limitMiB` for one process, or (no cgroup this process may create: a container without
 * cgroup access, cgroup v2's rule against processes in inner nodes) none, said in the label so a figure is never
 * read as the deployed one when it is not.
 */
export function memoryLimit(name: string, limitMiB: number | undefined): MemoryLimit {
  const unlimited = (why: string): MemoryLimit => ({
    label: `unlimited (${why})`,
    wrap: (command, args) => ({ command, args }),
    remove: () => undefined,
  });
  if (limitMiB === undefined) return unlimited('BENCH_MEMORY_LIMIT=none');
  const own = ownMemoryCgroup();
  if (!own) return unlimited('no memory cgroup');
  const dir = path.join(own.dir, name);
  try {
    mkdirSync(dir);
    writeFileSync(path.join(dir, own.limitFile), String(limitMiB * 1024 * 1024));
  } catch (err) {
    try {
      rmdirSync(dir);
    } catch {}
    return unlimited(`cannot create a cgroup: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  return {
    label: `${limitMiB} MiB cgroup`,
    wrap: (command, args) => ({
      command: '/bin/sh',
      args: ['-c', 'echo $$ > "$0/cgroup.procs" && exec "$@"', dir, command, ...args],
    }),
    remove() {
      try {
        rmdirSync(dir);
      } catch {}
    },
  };
}
