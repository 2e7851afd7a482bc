// `pnpm build`: bundles every host that exists and the worker into a self-contained folder dist/<host>/ (main.js,
// migrate.js, the migrations, the sign-in pages' assets) that runs with `node` alone: no tsx, no pnpm, no node_modules.
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { build, type Metafile, type Plugin } from 'esbuild';
import { ASSETS_DIR, browserBundlePath } from '../libs/signin/src/routes/assets';

const root = path.resolve(__dirname, '..');
/** Every host the fleet may have; only those with a services/<host>/src/main.ts are built. */
const CANDIDATES = ['connect', 'native', 'session', 'device', 'oidc', 'worker'] as const;
/** Hosts serving the sign-in pages of libs/signin: their assets are copied beside main.js. */
const SIGNIN_HOSTS = new Set<string>(['connect', 'device', 'oidc']);

export function builtHosts(): string[] {
  return CANDIDATES.filter((h) => existsSync(path.join(root, 'services', h, 'src', 'main.ts')));
}

/**
 * Named in the bundle but never loaded by it: pg requires pg-native lazily behind `pg.native`, which no host
 * uses; connect resolves @simplewebauthn/browser only when run from source (the build copies the file to assets/);
 * bullmq requires @valkey/valkey-glide only for a Valkey GLIDE connection, which the worker never opens.
 */
const NEVER_LOADED = new Set(['pg-native', '@simplewebauthn/browser', '@valkey/valkey-glide']);

/**
 * Files of the folder itself that main.js loads when needed: the OpenTelemetry SDK (only when tracing is
 * configured, so an idle host never parses it) and the Prisma query compiler's WebAssembly.
 */
const TELEMETRY_SDK = './telemetry-sdk.js';
const QUERY_COMPILER_WASM = 'query-compiler.wasm';
const PRISMA_WASM_MODULE = '@prisma/client/runtime/query_compiler_fast_bg.postgresql.wasm-base64.js';

/**
 * Keeps two things out of main.js, which V8 holds in memory whole for as long as the process runs (its source,
 * for lazy compilation): the telemetry SDK (telemetry.ts requires it from the folder) and the query compiler,
 * which Prisma ships as a 4.5 MB base64 string literal (read from query-compiler.wasm when the client starts).
 */
const outOfMain: Plugin = {
  name: 'out-of-main',
  setup(b) {
    b.onResolve({ filter: /^\.\/telemetry-sdk$/ }, (args) =>
      args.importer.endsWith(path.join('libs', 'platform', 'src', 'telemetry.ts'))
        ? { path: TELEMETRY_SDK, external: true }
        : undefined,
    );
    b.onResolve({ filter: /wasm-base64\.js$/ }, (args) =>
      args.path === PRISMA_WASM_MODULE ? { path: args.path, namespace: 'query-compiler-wasm' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'query-compiler-wasm' }, () => ({
      loader: 'js',
      contents: `const { readFileSync } = require('node:fs');
const { join } = require('node:path');
module.exports = { get wasm() { return readFileSync(join(__dirname, ${JSON.stringify(QUERY_COMPILER_WASM)})).toString('base64'); } };`,
    }));
  },
};

/** The query compiler's WebAssembly bytes, decoded from the module Prisma generates against. */
function queryCompilerWasm(): Buffer {
  const generated = path.join(root, 'libs', 'db', 'src', 'generated', 'internal', 'class.ts');
  const module = require(require.resolve(PRISMA_WASM_MODULE, { paths: [path.dirname(generated)] })) as {
    wasm: string;
  };
  return Buffer.from(module.wasm, 'base64');
}

/** The bundle may import Node's own modules only: anything else would need a node_modules beside it. */
function assertSelfContained(metafile: Metafile): void {
  const builtins = new Set([
    ...NEVER_LOADED,
    TELEMETRY_SDK,
    ...builtinModules.flatMap((m) => [m, `node:${m}`]),
  ]);
  for (const [file, output] of Object.entries(metafile.outputs)) {
    for (const imp of output.imports) {
      if (imp.external && !builtins.has(imp.path) && !imp.path.startsWith('node:'))
        throw new Error(`${file} imports ${imp.path}, which is not bundled`);
    }
  }
}

export async function buildAll(outRoot = path.join(root, 'dist')): Promise<string[]> {
  const hosts = builtHosts();
  const entryPoints: Record<string, string> = {};
  for (const host of hosts) {
    entryPoints[`${host}/main`] = path.join(root, 'services', host, 'src', 'main.ts');
    entryPoints[`${host}/migrate`] = path.join(root, 'libs', 'db', 'src', 'migrate-cli.ts');
    entryPoints[`${host}/telemetry-sdk`] = path.join(root, 'libs', 'platform', 'src', 'telemetry-sdk.ts');
  }
  for (const host of hosts) rmSync(path.join(outRoot, host), { recursive: true, force: true });
  const result = await build({
    entryPoints,
    outdir: outRoot,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    // Some dependencies ship ESM that reads import.meta.url; in a CJS bundle it becomes the bundle's own URL.
    define: { 'import.meta.url': '__bundle_url' },
    banner: { js: 'const __bundle_url = require("node:url").pathToFileURL(__filename).href;' },
    legalComments: 'linked',
    metafile: true,
    logLevel: 'warning',
    // assets.ts resolves @simplewebauthn/browser only when run from source; the build copies the file instead.
    logOverride: { 'require-resolve-not-external': 'silent' },
    plugins: [outOfMain],
  });
  assertSelfContained(result.metafile);
  const wasm = queryCompilerWasm();
  for (const host of hosts) {
    const dir = path.join(outRoot, host);
    writeFileSync(path.join(dir, QUERY_COMPILER_WASM), wasm);
    cpSync(path.join(root, 'prisma', 'migrations'), path.join(dir, 'prisma', 'migrations'), {
      recursive: true,
    });
    // A package.json of its own: the folder is CommonJS wherever it is copied, whatever a parent folder says.
    writeFileSync(
      path.join(dir, 'package.json'),
      `${JSON.stringify({ name: `signin-${host}`, private: true, type: 'commonjs', main: 'main.js' }, null, 2)}\n`,
    );
    if (SIGNIN_HOSTS.has(host)) {
      mkdirSync(path.join(dir, 'assets'), { recursive: true });
      cpSync(ASSETS_DIR, path.join(dir, 'assets'), { recursive: true });
      cpSync(browserBundlePath(), path.join(dir, 'assets', 'simplewebauthn-browser.js'));
    }
  }
  return hosts;
}

if (require.main === module) {
  buildAll().then(
    (hosts) => process.stdout.write(`built ${hosts.map((h) => `dist/${h}/`).join(', ')}\n`),
    (err: unknown) => {
      process.stderr.write(`build failed: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
