// `pnpm build` artifacts: each dist/<host>/, built outside the repo, starts with `node` alone against the real
// PostgreSQL and Redis, migrates a fresh database, answers /readyz (the worker: logs it started), and exits 0 on SIGTERM.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startMailbox, testUrls, uniqueName, waitUntil } from '@svc/testkit';
import pg from 'pg';
import { DEFAULT_PORTS, type HostName } from '../libs/platform/src/config';
import { gitCommit } from '../libs/platform/src/version';
import { ADMIN, buildAll } from './build';
import { healthcheckArgv, imageOf } from './dockerfile';

const repo = path.resolve(__dirname, '..');
const copyRoot = mkdtempSync(path.join(tmpdir(), 'dist-'));
const dbName = `${new URL(testUrls.database).pathname.slice(1)}_${uniqueName('dist').replace('-', '_')}`;
const freshUrl = (() => {
  const u = new URL(testUrls.database);
  u.pathname = `/${dbName}`;
  return u.toString();
})();
let hosts: string[] = [];
/** The build's version as the bundles must report it: the tree's commit, a build time during this run. */
const commit = gitCommit(repo);
const builtAfter = Date.now();
const expectVersion = (version: { commit: string; builtAt: string }) => {
  expect(version.commit).toBe(commit);
  expect(Date.parse(version.builtAt)).toBeGreaterThanOrEqual(Math.floor(builtAfter / 1000) * 1000);
  expect(Date.parse(version.builtAt)).toBeLessThanOrEqual(Date.now());
};
/** One KEK for every process of this file: the admin tool seals a signing key the hosts must then open. */
const kek = randomBytes(32).toString('base64');
const subjectSecret = randomBytes(32).toString('base64url');

/** Only what an orchestrator would pass: no NODE_PATH, no pnpm or tsx variables. */
function hostEnv(): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    NODE_ENV: 'production',
    DATABASE_URL: freshUrl,
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0',
    // Standard base64, as the configuration schema requires (base64url's - and _ are refused).
    KEY_ENCRYPTION_KEY: kek,
    SUBJECT_SECRET: subjectSecret,
    PORT: '0',
    WORKER_QUEUE_PREFIX: uniqueName('distq'),
    SHUTDOWN_GRACE_MS: '2000',
    // Production has no local URL defaults.
    CONNECT_URL: 'https://connect.example.test',
    NATIVE_URL: 'https://native.example.test',
    SESSION_URL: 'https://session.example.test',
    DEVICE_URL: 'https://device.example.test',
    OIDC_URL: 'https://oidc.example.test',
    MANAGEMENT_URL: 'https://management.example.test',
  };
}

function run(
  file: string,
  cwd: string,
  args: string[] = [],
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [file, ...args],
      { cwd, env: hostEnv(), timeout: 30_000 },
      (err, stdout, stderr) => {
        done({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
      },
    );
  });
}

/** Runs the image's HEALTHCHECK command (from the Dockerfile) as the container would: in its folder, with its ENV. */
function healthcheck(host: string, env: NodeJS.ProcessEnv): Promise<number> {
  const argv = healthcheckArgv(imageOf(host))!;
  return new Promise((done) => {
    execFile(
      process.execPath,
      argv.slice(1),
      { cwd: path.join(copyRoot, host), env: { PATH: process.env.PATH, ...env }, timeout: 10_000 },
      (err) => done(err ? (typeof err.code === 'number' ? err.code : -1) : 0),
    );
  });
}

function exitCode(child: ChildProcess): Promise<number | null> {
  return new Promise((r) => {
    if (child.exitCode !== null) r(child.exitCode);
    else child.once('exit', (code) => r(code));
  });
}

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => done(port));
    });
  });
}

beforeAll(async () => {
  // Built straight into the test's own directory: a person's dist/ in the checkout is never touched.
  hosts = await buildAll(copyRoot);
}, 180_000);

afterAll(async () => {
  rmSync(copyRoot, { recursive: true, force: true });
  const admin = new pg.Client({ connectionString: testUrls.database });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
  await admin.end();
});

describe('pnpm build', () => {
  it('builds every host that exists and the worker, each folder self-contained', () => {
    const sources = readdirSync(path.join(repo, 'services')).filter((h) =>
      existsSync(path.join(repo, 'services', h, 'src', 'main.ts')),
    );
    expect(hosts.sort()).toEqual(sources.sort());
    expect(hosts).toEqual(expect.arrayContaining(['connect', 'native', 'session', 'worker']));
    // Nothing above the copies can lend them modules.
    for (let dir = copyRoot; dir !== path.dirname(dir); dir = path.dirname(dir))
      expect(existsSync(path.join(dir, 'node_modules'))).toBe(false);
    for (const host of hosts) {
      const files = readdirSync(path.join(copyRoot, host));
      expect(files).toEqual(
        expect.arrayContaining([
          'main.js',
          'migrate.js',
          'package.json',
          'prisma',
          'query-compiler.wasm',
          'telemetry-sdk.js',
        ]),
      );
      expect(files).not.toContain('node_modules');
      // Kept out of main.js (V8 holds its source for the life of the process): the SDK and the 4.5 MB literal.
      const main = readFileSync(path.join(copyRoot, host, 'main.js'), 'utf8');
      expect(main).not.toContain('@opentelemetry/sdk-trace');
      expect(main).not.toContain('AGFzbQEAAAAB');
      expect(main.length).toBeLessThan(6_000_000);
      // ASCII only: one other character anywhere (a comment) and V8 holds the whole source at two bytes a character.
      for (const file of files.filter((f) => f.endsWith('.js')))
        expect(/[\u0080-\uffff]/.test(readFileSync(path.join(copyRoot, host, file), 'utf8'))).toBe(false);
      // Loaded on first use only, from files of their own: WebAuthn (the sign-in hosts) and nodemailer.
      expect(main).not.toContain('node_modules/@simplewebauthn/server/');
      expect(main).not.toContain('node_modules/nodemailer/');
      if (['connect', 'device', 'oidc'].includes(host))
        expect(files).toEqual(expect.arrayContaining(['webauthn.js', 'smtp.js']));
    }
    expect(readdirSync(path.join(copyRoot, 'connect', 'assets')).sort()).toEqual([
      'signin.css',
      'signin.js',
      'simplewebauthn-browser.js',
    ]);
  });

  it('the side files of the sign-in hosts work from the folder alone: WebAuthn options and an SMTP mail', async () => {
    const mailbox = await startMailbox();
    try {
      const script = `
        const webauthn = require('./webauthn.js');
        const smtp = require('./smtp.js');
        (async () => {
          const options = await webauthn.generateAuthenticationOptions({ rpID: 'example.test' });
          const mail = smtp.openSmtpTransport('smtp://127.0.0.1:${mailbox.port}');
          await mail.sendMail({ from: 'a@example.test', to: 'side-files@example.test', subject: 's', text: 'sent' });
          mail.close();
          process.stdout.write(options.rpId);
        })();`;
      const out = await new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
        execFile(
          process.execPath,
          ['-e', script],
          { cwd: path.join(copyRoot, 'connect'), env: hostEnv(), timeout: 30_000 },
          (err, stdout, stderr) => done({ code: err ? -1 : 0, stdout, stderr }),
        );
      });
      expect(out).toEqual({ code: 0, stdout: 'example.test', stderr: '' });
      expect(mailbox.messages.map((m) => m.to)).toEqual(['side-files@example.test']);
    } finally {
      await mailbox.close();
    }
  }, 60_000);

  it('migrate.js creates and migrates a fresh database from the folder alone', async () => {
    const first = await run('migrate.js', path.join(copyRoot, 'session'));
    expect(first).toMatchObject({ code: 0, stderr: '' });
    const shipped = readdirSync(path.join(repo, 'prisma', 'migrations')).filter((n) => !n.endsWith('.toml'));
    expect(JSON.parse(first.stdout)).toEqual({ applied: shipped.sort(), alreadyApplied: [] });
    // Every host's folder carries the same migrations: running another one finds them all applied.
    const again = await run('migrate.js', path.join(copyRoot, 'worker'));
    expect(JSON.parse(again.stdout)).toEqual({ applied: [], alreadyApplied: shipped.sort() });
  }, 60_000);

  it('admin/main.js is `pnpm admin` from the folder alone: one JSON object, exit 0, against the migrated database', async () => {
    const dir = path.join(copyRoot, ADMIN.folder);
    expect(readdirSync(dir)).toEqual(
      expect.arrayContaining(['main.js', 'package.json', 'query-compiler.wasm', 'example-terms.json']),
    );
    const org = await run('main.js', dir, ['org', 'create', '--name', uniqueName('dist-org')]);
    expect(org).toMatchObject({ code: 0, stderr: '' });
    const { id } = JSON.parse(org.stdout) as { id: string };
    const sector = await run('main.js', dir, ['sector', 'create', '--org', id, '--name', uniqueName('s')]);
    expect(sector.code).toBe(0);
    const anchor = uniqueName('dist-app');
    const app = await run('main.js', dir, [
      'app',
      'create',
      '--sector',
      (JSON.parse(sector.stdout) as { id: string }).id,
      '--anchor',
      anchor,
      '--name',
      'en-US=Dist app',
    ]);
    // A first signing key is made and sealed under the KEK: the bundled crypto, Prisma and configuration all work.
    expect([app.code, JSON.parse(app.stdout)]).toEqual([0, { applicationAnchor: anchor }]);
    // What issue 27 judges: `node dist/admin/main.js app list` on the migrated database, the one JSON object.
    const list = await run('main.js', dir, ['app', 'list']);
    expect(list).toMatchObject({ code: 0, stderr: '' });
    expect(list.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(list.stdout)).toEqual({
      applications: [
        {
          applicationAnchor: anchor,
          status: 'ACTIVE',
          sectorId: expect.any(String),
          names: { 'en-US': 'Dist app' },
          createdAt: expect.any(String),
        },
      ],
    });
    const terms = await run('main.js', dir, ['terms', 'publish', '--file', 'example-terms.json']);
    expect([terms.code, Object.keys(JSON.parse(terms.stdout))]).toEqual([0, ['revision']]);
    // The contract's refusal: one JSON error object, non-zero exit.
    const bad = await run('main.js', dir, ['org', 'frobnicate']);
    expect(bad.code).not.toBe(0);
    expect(Object.keys(JSON.parse(bad.stdout))).toEqual(['error']);
  }, 60_000);

  it.each(['connect', 'native', 'session', 'device', 'oidc', 'management', 'worker'])(
    'node %s/main.js starts alone, becomes ready, and exits 0 on SIGTERM',
    async (host) => {
      const env = { ...hostEnv(), ...(host === 'worker' ? { METRICS_PORT: String(await freePort()) } : {}) };
      const child = spawn(process.execPath, ['main.js'], {
        cwd: path.join(copyRoot, host),
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stdout?.on('data', (d: Buffer) => {
        out += d.toString();
      });
      child.stderr?.on('data', (d: Buffer) => {
        err += d.toString();
      });
      const exited = exitCode(child);
      try {
        if (host === 'worker') {
          await waitUntil(async () => /"msg":"worker started"/.test(out) || child.exitCode !== null, 30_000);
          expect(out).toContain('"msg":"worker started"');
          expect(await healthcheck(host, { METRICS_PORT: env.METRICS_PORT })).toBe(0);
          // Which build runs: in its start line and on /healthz beside its metrics.
          const started = out.split('\n').find((l) => l.includes('"msg":"worker started"'))!;
          expectVersion(JSON.parse(started).version);
          const health = await fetch(`http://127.0.0.1:${env.METRICS_PORT}/healthz`);
          expectVersion(((await health.json()) as { version: { commit: string; builtAt: string } }).version);
        } else {
          await waitUntil(async () => /"port":\d+/.test(out) || child.exitCode !== null, 30_000);
          const port = Number(/"port":(\d+)/.exec(out)?.[1]);
          expect(port).toBeGreaterThan(0);
          await waitUntil(async () => {
            const res = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
            return res?.status === 200;
          }, 30_000);
          const health = await fetch(`http://127.0.0.1:${port}/healthz`);
          expect(health.status).toBe(200);
          // Which build answers: baked in at build, on /healthz and in the start line.
          expectVersion(((await health.json()) as { version: { commit: string; builtAt: string } }).version);
          const listening = out.split('\n').find((l) => /"port":\d+/.test(l))!;
          expectVersion(JSON.parse(listening).version);
          expect(await healthcheck(host, { PORT: String(port) })).toBe(0);
          // The image sets no PORT: the check falls back to the folder's own port (config.port of package.json,
          // the host's default), here pointed at the port this copy listens on.
          const pkgFile = path.join(copyRoot, host, 'package.json');
          const pkg = JSON.parse(readFileSync(pkgFile, 'utf8')) as { config: { port: number } };
          expect(pkg.config.port).toBe(DEFAULT_PORTS[host as HostName]);
          writeFileSync(pkgFile, JSON.stringify({ ...pkg, config: { port } }));
          expect(await healthcheck(host, {})).toBe(0);
          if (host === 'connect') {
            const css = await fetch(`http://127.0.0.1:${port}/assets/signin.css`);
            expect(css.status).toBe(200);
            const bundle = await fetch(`http://127.0.0.1:${port}/assets/simplewebauthn-browser.js`);
            expect(bundle.status).toBe(200);
          }
        }
      } finally {
        if (child.exitCode === null) child.kill('SIGTERM');
      }
      expect({ code: await exited, stderr: err }).toEqual({ code: 0, stderr: '' });
    },
    60_000,
  );
});
