// A scratch copy of the checkout for a test that runs documented commands as written (the README's shell blocks):
// a temporary directory whose entries link to the checkout's, so `pnpm -s admin ...` and relative paths work there,
// while every file the commands write lands in the temporary directory. A person's own files in the checkout (a
// client key the README's setup made) are never read, overwritten or removed.
import { mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface CheckoutSandbox {
  /** The directory to run the commands in. */
  dir: string;
  /** Removes the directory (the links, never what they point at). */
  remove(): void;
}

/**
 * A sandbox of `root`: each top-level entry linked, except the files the commands will write (`writes`, names in
 * the root), which are left out so that the commands create their own inside the sandbox.
 */
export function checkoutSandbox(root: string, writes: readonly string[]): CheckoutSandbox {
  const dir = mkdtempSync(path.join(tmpdir(), 'checkout-'));
  const written = new Set(writes);
  for (const name of readdirSync(root)) {
    if (written.has(name) || name === '.git') continue;
    symlinkSync(path.join(root, name), path.join(dir, name));
  }
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
