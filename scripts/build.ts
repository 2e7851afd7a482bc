// `pnpm build`: bundles every host that exists and the worker into a self-contained folder dist/<host>/ (main.js,
// migrate.js, the migrations, the sign-in pages' assets), and the admin tool into dist/admin/ (main.js, the same CLI
// as `pnpm admin`), each of which runs with `node` alone: no tsx, no pnpm, no node_modules.
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { build, type Metafile, type Plugin } from 'esbuild';
import { DEFAULT_PORTS, type HostName } from '../libs/platform/src/config';
import { gitCommit } from '../libs/platform/src/version';
import { ASSETS_DIR, browserBundlePath } from '../libs/signin/src/routes/assets';

const root = path.resolve(__dirname, '..');
/** Every host the fleet may have; only those with a services/<host>/src/main.ts are built. */
const CANDIDATES = ['connect', 'native', 'session', 'device', 'oidc', 'management', 'worker'] as const;
/** Hosts serving the sign-in pages of libs/signin: their assets are copied beside main.js. */
const SIGNIN_HOSTS = new Set<string>(['connect', 'device', 'oidc']);

export function builtHosts(): string[] {
  return CANDIDATES.filter((h) => existsSync(path.join(root, 'services', h, 'src', 'main.ts')));
}

/**
 * The admin tool's folder: `node dist/admin/main.js <resource> <verb> ...` is `pnpm admin ...` (CONTRACTS' JSON
 * contract) for production, where there is no checkout, pnpm or tsx. Every image carries it as /app/admin/.
 */
export const ADMIN = {
  folder: 'admin',
  entry: 'tools/admin/src/main.ts',
  files: ['tools/admin/src/example-terms.json'],
};

/**
 * Named in the bundle but never loaded by it: pg requires pg-native lazily behind `pg.native`, which no host
 * uses; connect resolves @simplewebauthn/browser only when run from source (the build copies the file to assets/);
 * bullmq requires @valkey/valkey-glide only for a Valkey GLIDE connection, which the worker never opens.
 */
const NEVER_LOADED = new Set(['pg-native', '@simplewebauthn/browser', '@valkey/valkey-glide']);

/**
 * Files of the folder itself that main.js loads when needed, each a bundle of its own beside it, so that a process
 * neither parses nor keeps in memory what it may never run (V8 holds a script's source for the life of the process,
 * for lazy compilation). The importing module requires the sibling by this name (`require('./telemetry-sdk')`:
 * from source the .ts file); the build points that require at the file beside main.js.
 *   - the OpenTelemetry SDK: only when tracing is configured;
 *   - @simplewebauthn/server (with @peculiar/x509, asn1js, tsyringe): on the first passkey ceremony;
 *   - nodemailer: on the first mail.
 */
const SIDE_FILES: { name: string; importer: string; hosts: 'all' | 'signin' }[] = [
  { name: 'telemetry-sdk', importer: 'libs/platform/src/telemetry.ts', hosts: 'all' },
  { name: 'webauthn', importer: 'libs/signin/src/domain/passkeys.ts', hosts: 'signin' },
  { name: 'smtp', importer: 'libs/signin/src/domain/mailer.ts', hosts: 'signin' },
];
const QUERY_COMPILER_WASM = 'query-compiler.wasm';
const PRISMA_WASM_MODULE = '@prisma/client/runtime/query_compiler_fast_bg.postgresql.wasm-base64.js';

/**
 * Keeps things out of main.js: the side files above (their importer requires them from the folder) and the query
 * compiler, which Prisma ships as a 4.5 MB base64 string literal (read from query-compiler.wasm when the client
 * starts).
 */
const outOfMain: Plugin = {
  name: 'out-of-main',
  setup(b) {
    for (const side of SIDE_FILES) {
      const importer = path.join(root, side.importer);
      b.onResolve({ filter: new RegExp(`^\\./${side.name}$`) }, (args) =>
        args.importer === importer ? { path: `./${side.name}.js`, external: true } : undefined,
      );
    }
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
    ...SIDE_FILES.map((side) => `./${side.name}.js`),
    ...builtinModules.flatMap((m) => [m, `node:${m}`]),
  ]);
  for (const [file, output] of Object.entries(metafile.outputs)) {
    for (const imp of output.imports) {
      if (imp.external && !builtins.has(imp.path) && !imp.path.startsWith('node:'))
        throw new Error(`${file} imports ${imp.path}, which is not bundled`);
      // A side file must be emitted for the host that requires it.
      if (
        imp.external &&
        imp.path.startsWith('./') &&
        !(path.join(path.dirname(file), imp.path) in metafile.outputs)
      )
        throw new Error(`${file} requires ${imp.path}, which is not built beside it`);
    }
  }
}

/**
 * Rewrites what is left of non-ASCII characters in an emitted file as \u escapes. esbuild escapes them in strings,
 * template literals, regular expressions and identifiers (its ASCII charset) but copies comments as they are, and a
 * single "—" in a comment makes V8 hold the whole script source as a two-byte string: main.js, kept in memory for
 * the life of the process, would take twice its size (a 5 MB main.js: 10 MiB of heap instead of 5). An escape means
 * the same character wherever else one could still stand.
 */
function asciiOnly(file: string): void {
  const text = readFileSync(file, 'utf8');
  if (!/[\u0080-\uffff]/.test(text)) return;
  writeFileSync(
    file,
    text.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
  );
}

export async function buildAll(outRoot = path.join(root, 'dist')): Promise<string[]> {
  const hosts = builtHosts();
  const entryPoints: Record<string, string> = {};
  for (const host of hosts) {
    entryPoints[`${host}/main`] = path.join(root, 'services', host, 'src', 'main.ts');
    entryPoints[`${host}/migrate`] = path.join(root, 'libs', 'db', 'src', 'migrate-cli.ts');
  }
  entryPoints[`${ADMIN.folder}/main`] = path.join(root, ADMIN.entry);
  const folders = [...hosts, ADMIN.folder];
  for (const folder of folders) {
    for (const side of SIDE_FILES) {
      if (side.hosts === 'signin' && !SIGNIN_HOSTS.has(folder)) continue;
      entryPoints[`${folder}/${side.name}`] = path.join(root, path.dirname(side.importer), `${side.name}.ts`);
    }
  }
  for (const folder of folders) rmSync(path.join(outRoot, folder), { recursive: true, force: true });
  const result = await build({
    entryPoints,
    outdir: outRoot,
    bundle: true,
    platform: 'node',
    target: 'node24',
    format: 'cjs',
    // Some dependencies ship ESM that reads import.meta.url; in a CJS bundle it becomes the bundle's own URL.
    // Which build this is (libs/platform/src/version.ts): printed at start and answered on /healthz.
    define: {
      'import.meta.url': '__bundle_url',
      __SIGNIN_COMMIT__: JSON.stringify(gitCommit(root)),
      __SIGNIN_BUILT_AT__: JSON.stringify(new Date().toISOString()),
    },
    banner: { js: 'const __bundle_url = require("node:url").pathToFileURL(__filename).href;' },
    legalComments: 'linked',
    metafile: true,
    logLevel: 'warning',
    // assets.ts resolves @simplewebauthn/browser only when run from source; the build copies the file instead.
    logOverride: { 'require-resolve-not-external': 'silent' },
    plugins: [outOfMain],
  });
  assertSelfContained(result.metafile);
  for (const file of Object.keys(result.metafile.outputs)) if (file.endsWith('.js')) asciiOnly(file);
  const wasm = queryCompilerWasm();
  const adminDir = path.join(outRoot, ADMIN.folder);
  writeFileSync(path.join(adminDir, QUERY_COMPILER_WASM), wasm);
  for (const file of ADMIN.files) cpSync(path.join(root, file), path.join(adminDir, path.basename(file)));
  const adminPkg = { name: 'signin-admin', private: true, type: 'commonjs', main: 'main.js' };
  writeFileSync(path.join(adminDir, 'package.json'), `${JSON.stringify(adminPkg, null, 2)}\n`);
  for (const host of hosts) {
    const dir = path.join(outRoot, host);
    writeFileSync(path.join(dir, QUERY_COMPILER_WASM), wasm);
    cpSync(path.join(root, 'prisma', 'migrations'), path.join(dir, 'prisma', 'migrations'), {
      recursive: true,
    });
    // A package.json of its own: the folder is CommonJS wherever it is copied, whatever a parent folder says. An
    // HTTP host's default port rides along as config.port, for the image's health check when PORT is unset.
    const port = host in DEFAULT_PORTS ? { config: { port: DEFAULT_PORTS[host as HostName] } } : {};
    const pkg = { name: `signin-${host}`, private: true, type: 'commonjs', main: 'main.js', ...port };
    writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
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
    (hosts) =>
      process.stdout.write(`built ${[...hosts, ADMIN.folder].map((h) => `dist/${h}/`).join(', ')}\n`),
    (err: unknown) => {
      process.stderr.write(`build failed: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
