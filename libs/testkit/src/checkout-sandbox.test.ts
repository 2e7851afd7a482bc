// checkoutSandbox: commands run in it see the checkout's files, and what they write stays in the sandbox; a file of
// the same name in the checkout is neither read, changed nor removed, and removing the sandbox removes only it.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { checkoutSandbox } from './checkout-sandbox';

test("a command writing a checkout file's name writes into the sandbox; the checkout's file is untouched", () => {
  // A stand-in checkout with a person's own key file and a file the command reads.
  const root = mkdtempSync(path.join(tmpdir(), 'fake-checkout-'));
  try {
    writeFileSync(path.join(root, 'key.jwk.json'), 'precious');
    mkdirSync(path.join(root, 'tools'));
    writeFileSync(path.join(root, 'tools', 'input.txt'), 'input');
    const sandbox = checkoutSandbox(root, ['key.jwk.json']);
    const run = spawnSync('bash', ['-euo', 'pipefail', '-c', 'cat tools/input.txt > key.jwk.json'], {
      cwd: sandbox.dir,
      encoding: 'utf8',
    });
    expect(run.status).toBe(0);
    expect(readFileSync(path.join(sandbox.dir, 'key.jwk.json'), 'utf8')).toBe('input');
    expect(readFileSync(path.join(root, 'key.jwk.json'), 'utf8')).toBe('precious');
    sandbox.remove();
    expect(existsSync(sandbox.dir)).toBe(false);
    expect(readFileSync(path.join(root, 'key.jwk.json'), 'utf8')).toBe('precious');
    expect(readFileSync(path.join(root, 'tools', 'input.txt'), 'utf8')).toBe('input');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
