// scripts/start-host.ts (behind `pnpm start:<host>` for hosts being built) must fail loudly for a host without an
// entry point, not exit 0; a fictional host name keeps this true whichever hosts exist.
import { execFile } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(__dirname, '..');

function pnpm(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile('pnpm', args, { cwd: root, timeout: 25_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      done({ code, stdout, stderr });
    });
  });
}

describe('starting a host that is not built yet', () => {
  it.each(['absent'])('start-host %s exits non-zero and names the missing entry point', async (host) => {
    const run = await pnpm(['-s', 'exec', 'tsx', 'scripts/start-host.ts', host]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(`cannot start the ${host} host: it is not built yet`);
    expect(run.stderr).toContain(`services/${host}/src/main.ts does not exist`);
  });
});
