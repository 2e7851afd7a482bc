// createPrisma keeps WebAssembly (Prisma's query compiler) on V8's baseline tier, on the Node the tests run on.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const probe = path.join(__dirname, '../test/liftoff-probe.ts');

async function tierOf(mode: 'flags' | 'untouched'): Promise<string> {
  const { stdout } = await run(process.execPath, ['--allow-natives-syntax', '--import', 'tsx', probe, mode], {
    timeout: 30_000,
  });
  return stdout.trim();
}

describe('compileWebAssemblyWithLiftoffOnly', () => {
  it('leaves a hot WebAssembly function on Liftoff, where V8 alone would tier it up to TurboFan', async () => {
    // The control shows the probe can tell: without the flags the same hot function reaches TurboFan.
    const [withFlags, untouched] = await Promise.all([tierOf('flags'), tierOf('untouched')]);
    expect(untouched).toBe('turbofan');
    expect(withFlags).toBe('liftoff');
  }, 60_000);
});
