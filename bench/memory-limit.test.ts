// The memory bench runs a host under its manifest's limit where it can, and says so when it cannot.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { manifestMemoryLimitMiB, memoryLimit } from './memory-limit';

const run = promisify(execFile);

describe('memoryLimit', () => {
  it("reads each host's limit from its manifest", () => {
    for (const host of ['session', 'native', 'connect', 'device', 'oidc', 'worker']) {
      expect(manifestMemoryLimitMiB(host)).toBeGreaterThanOrEqual(128);
    }
  });

  it('runs a process whose constrained memory is the limit, or labels it unlimited', async () => {
    const limitMiB = 300 + Math.floor(Math.random() * 200);
    const limit = memoryLimit(`memory-limit-test-${process.pid}-${limitMiB}`, limitMiB);
    try {
      const { command, args } = limit.wrap(process.execPath, ['-p', 'process.constrainedMemory()']);
      const { stdout } = await run(command, args, { timeout: 30_000 });
      const constrained = Number(stdout.trim()) / 1024 / 1024;
      if (limit.label.startsWith('unlimited')) expect(constrained).not.toBe(limitMiB);
      else {
        expect(limit.label).toBe(`${limitMiB} MiB cgroup`);
        expect(constrained).toBe(limitMiB);
      }
    } finally {
      limit.remove();
    }
  });

  it('labels a process run without a limit', () => {
    const limit = memoryLimit('never-created', undefined);
    expect(limit.label).toBe('unlimited (BENCH_MEMORY_LIMIT=none)');
    expect(limit.wrap('node', ['x'])).toEqual({ command: 'node', args: ['x'] });
  });
});
