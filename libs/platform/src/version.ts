// Which build a process is: its git commit and build time, printed at start and answered on /healthz, so an operator
// can tell which build answers. `pnpm build` bakes both into each bundle (esbuild `define`, scripts/build.ts); run
// from source (tsx, jest), the commit comes from git once and there is no build time.
import { execFileSync } from 'node:child_process';
import path from 'node:path';

/** Replaced by the build with string literals; undeclared (typeof 'undefined') when run from source. */
declare const __SIGNIN_COMMIT__: string | undefined;
declare const __SIGNIN_BUILT_AT__: string | undefined;

export interface BuildVersion {
  /** The git commit (`-dirty` when the tree had uncommitted changes), or `unknown` outside a repository. */
  commit: string;
  /** When `pnpm build` made the bundle (ISO 8601); null when run from source. */
  builtAt: string | null;
}

let cached: BuildVersion | undefined;

/** The commit of the tree at `dir`, as `git` tells it; `unknown` when there is no git or no repository. */
export function gitCommit(dir: string): string {
  try {
    const run = (args: string[]) =>
      execFileSync('git', args, { cwd: dir, stdio: ['ignore', 'pipe', 'ignore'], timeout: 5000 })
        .toString()
        .trim();
    const commit = run(['rev-parse', 'HEAD']);
    return run(['status', '--porcelain', '--untracked-files=no']) ? `${commit}-dirty` : commit;
  } catch {
    return 'unknown';
  }
}

export function buildVersion(): BuildVersion {
  if (!cached) {
    cached =
      typeof __SIGNIN_COMMIT__ === 'string'
        ? {
            commit: __SIGNIN_COMMIT__,
            builtAt: typeof __SIGNIN_BUILT_AT__ === 'string' ? __SIGNIN_BUILT_AT__ : null,
          }
        : { commit: gitCommit(path.resolve(__dirname, '..', '..', '..')), builtAt: null };
  }
  return cached;
}
