// The reference device client: end to end as `pnpm device-login` (a child process) against the real device host,
// approved or denied through the approval domain functions, and its polling discipline against a stand-in server.
import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { freePort, startFaultProxy, waitUntil } from '@svc/testkit';
import {
  denyDeviceAuthorization,
  findPendingAuthorization,
} from '../../../services/device/src/domain/approval';
import {
  approve,
  type DeviceHarness,
  provisionDeviceApp,
  startDevice,
  uniqueName,
} from '../../../services/device/test/support';
import { deviceLogin, isSafeVerificationUri, USER_AGENT } from '../src/client';

const ROOT = path.resolve(__dirname, '../../..');

interface Run {
  child: ChildProcess;
  stdout: string;
  stderr: string;
  exit: Promise<number>;
}

function runCli(args: string[]): Run {
  const child = spawn(process.execPath, ['--import', 'tsx', 'tools/device-login/src/main.ts', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const run: Run = {
    child,
    stdout: '',
    stderr: '',
    exit: new Promise((resolve) => child.on('exit', (code) => resolve(code ?? -1))),
  };
  child.stdout!.on('data', (d) => (run.stdout += d));
  child.stderr!.on('data', (d) => (run.stderr += d));
  return run;
}

async function shownUserCode(run: Run): Promise<string> {
  await waitUntil(async () => run.stderr.includes('Waiting for approval'), 30_000);
  return /enter the code\s+([0-9A-Z]{4}-[0-9A-Z]{4})/.exec(run.stderr)![1]!;
}

describe('pnpm device-login against the device host', () => {
  let h: DeviceHarness;
  beforeAll(async () => {
    // A real clock (the CLI really waits) and a 1 s interval, so the run takes seconds.
    h = await startDevice(
      { pollIntervalSeconds: 1 },
      {
        clock: Object.assign(() => Date.now(), { set: () => undefined, advance: () => undefined }),
        redisPrefix: uniqueName('dv'),
      },
    );
  });
  afterAll(() => h.close());

  it('shows the code, the URI and a QR code, and prints the claims once approved', async () => {
    const app = await provisionDeviceApp(h.infra);
    const run = runCli(['--app', app.anchor, '--device-url', h.url]);
    const userCode = await shownUserCode(run);
    const base = h.deps.config.deviceUrl;
    expect(run.stderr).toContain(`open  ${base}/device`);
    expect(run.stderr).toContain(`${base}/device?user_code=${userCode}`);
    // The QR code is drawn with block characters.
    expect(run.stderr).toMatch(/[▀▄█]{10,}/);
    await approve(h, userCode);
    expect(await run.exit).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out.applicationAnchor).toBe(app.anchor);
    expect(Object.keys(out.claims).sort()).toEqual([
      'animatedAvatar',
      'email',
      'firstName',
      'lastName',
      'staticAvatar',
    ]);
    expect(out.accessTokenClaims.aud).toBe(app.anchor);
    expect(typeof out.accessTokenClaims.sub).toBe('string');
    expect(out.refreshTokenClaims.rotationVersion).toBe(1);
    // The tokens themselves are printed only when asked for.
    expect(run.stdout).not.toContain('accessToken"');
  }, 60_000);

  it('says in words that the sign-in was denied, and exits 1', async () => {
    const app = await provisionDeviceApp(h.infra);
    const run = runCli(['--app', app.anchor, '--device-url', h.url, '--no-qr']);
    const userCode = await shownUserCode(run);
    const found = await findPendingAuthorization(h.deps, userCode);
    if (found.kind !== 'found') throw new Error('not found');
    await denyDeviceAuthorization(h.deps, found.authorization.id);
    expect(await run.exit).toBe(1);
    expect(JSON.parse(run.stdout).error).toBe('access_denied');
    expect(run.stderr).toContain('The sign-in was denied');
  }, 60_000);

  it('stops and says to start a new sign-in when issuance fails, exiting 1', async () => {
    const app = await provisionDeviceApp(h.infra);
    const run = runCli(['--app', app.anchor, '--device-url', h.url, '--no-qr']);
    const userCode = await shownUserCode(run);
    // The application lost its signing keys: issuance itself fails (500 server_error), no outage to wait out.
    await h.infra.db.$executeRaw`DELETE FROM signing_keys WHERE application_id = ${app.applicationId}::uuid`;
    await approve(h, userCode);
    expect(await run.exit).toBe(1);
    expect(JSON.parse(run.stdout)).toEqual({ error: 'server_error', message: expect.any(String) });
    expect(run.stderr).toContain('Start a new sign-in');
  }, 60_000);

  it('keeps polling across a brief outage of the host (a restart), says so, and signs in; it names itself in User-Agent', async () => {
    const app = await provisionDeviceApp(h.infra);
    const { hostname, port } = new URL(h.url);
    const proxy = await startFaultProxy({ host: hostname, port: Number(port) });
    try {
      const run = runCli(['--app', app.anchor, '--device-url', proxy.urlFor(h.url), '--no-qr']);
      const userCode = await shownUserCode(run);
      // Every open connection reset and new ones refused, as while the host restarts.
      await proxy.cut();
      await waitUntil(async () => run.stderr.includes('is not answering'), 30_000);
      expect(run.child.exitCode).toBeNull();
      await proxy.pass();
      await approve(h, userCode);
      expect(await run.exit).toBe(0);
      expect(run.stderr).toContain('The device host answers again');
      expect(JSON.parse(run.stdout).applicationAnchor).toBe(app.anchor);
    } finally {
      await proxy.close();
    }
    const started = await h.infra.db.deviceAuthorization.findMany({
      where: { applicationId: app.applicationId },
      select: { deviceUserAgent: true },
    });
    expect(started).toEqual([{ deviceUserAgent: USER_AGENT }]);
    expect(USER_AGENT).toMatch(/^device-login\/\d+\.\d+\.\d+ \(signin-service; node\/24\./);
  }, 90_000);

  it('says in a sentence that the host cannot be reached, naming where, and exits 1', async () => {
    const down = `http://127.0.0.1:${await freePort()}`;
    const run = runCli(['--app', 'any-app', '--device-url', down]);
    expect(await run.exit).toBe(1);
    expect(JSON.parse(run.stdout)).toEqual({ error: 'unreachable', message: expect.any(String) });
    expect(run.stderr).toContain(`Could not reach the device host at ${down}. Is it running (pnpm start)`);
    expect(run.stderr).not.toMatch(/fetch failed|TypeError|at .*\.ts:\d+/);
  }, 60_000);

  it('says the code expired when nobody approved it in time, and exits 1', async () => {
    const short = await startDevice(
      { pollIntervalSeconds: 1, codeTtlSeconds: 2 },
      {
        clock: Object.assign(() => Date.now(), { set: () => undefined, advance: () => undefined }),
        redisPrefix: uniqueName('dvx'),
      },
    );
    try {
      const app = await provisionDeviceApp(short.infra);
      const run = runCli(['--app', app.anchor, '--device-url', short.url, '--no-qr']);
      expect(await run.exit).toBe(1);
      expect(JSON.parse(run.stdout).error).toBe('expired_token');
      expect(run.stderr).toContain('The code expired before anyone approved it');
    } finally {
      await short.close();
    }
  }, 60_000);

  it('prints its usage for --help and its version for --version, exit 0; no --app is a usage error, exit 2', async () => {
    const help = runCli(['--help']);
    expect(await help.exit).toBe(0);
    expect(help.stdout).toMatch(/^usage: pnpm device-login --app ANCHOR/);
    const version = runCli(['--version']);
    expect(await version.exit).toBe(0);
    expect(version.stdout).toMatch(/^device-login \d+\.\d+\.\d+\n$/);
    const bare = runCli([]);
    expect(await bare.exit).toBe(2);
    expect(bare.stderr).toContain('usage: pnpm device-login');
  }, 60_000);

  it('says in words why the device authorization could not start', async () => {
    const run = runCli(['--app', 'no-such-anchor', '--device-url', h.url]);
    expect(await run.exit).toBe(1);
    expect(JSON.parse(run.stdout).error).toBe('ApplicationNotFound');
    expect(run.stderr).toContain('No application has this anchor');
  }, 60_000);
});

describe('the polling discipline of the client', () => {
  function standIn(
    tokenAnswers: [number, unknown, Record<string, string>?][],
    authorizeBody?: Record<string, unknown>,
  ) {
    const seen: string[] = [];
    const server = http.createServer((req, res) => {
      seen.push(req.url ?? '');
      res.setHeader('content-type', 'application/json');
      if (req.url === '/device-authorize') {
        const port = (server.address() as AddressInfo).port;
        res.end(
          JSON.stringify({
            applicationAnchor: 'an-app',
            deviceCode: `dvc_${'1'.repeat(64)}`,
            userCode: 'BCDF-GHJK',
            verificationUri: `http://127.0.0.1:${port}/device`,
            verificationUriComplete: `http://127.0.0.1:${port}/device?user_code=BCDF-GHJK`,
            expiresIn: 600,
            interval: 5,
            ...authorizeBody,
          }),
        );
        return;
      }
      const [status, body, headers] = tokenAnswers.shift()!;
      res.statusCode = status;
      for (const [name, value] of Object.entries(headers ?? {})) res.setHeader(name, value);
      res.end(JSON.stringify(body));
    });
    return new Promise<{ url: string; seen: string[]; close(): void }>((resolve) =>
      server.listen(0, '127.0.0.1', () =>
        resolve({
          url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
          seen,
          close: () => server.close(),
        }),
      ),
    );
  }

  /** The client against a stand-in for application an-app, without a QR code and without waiting, unless `over` says. */
  const loginAt = (server: { url: string }, over: Partial<Parameters<typeof deviceLogin>[0]> = {}) =>
    deviceLogin({
      deviceUrl: server.url,
      applicationAnchor: 'an-app',
      show: () => undefined,
      qr: false,
      sleep: async () => undefined,
      ...over,
    });

  it('waits the interval before each poll and raises it as slow_down says, for every later poll', async () => {
    const server = await standIn([
      [400, { error: 'authorization_pending' }],
      [400, { error: 'slow_down', interval: 10 }],
      [400, { error: 'authorization_pending' }],
      [400, { error: 'slow_down' }],
      [200, { applicationAnchor: 'an-app', accessToken: 'a.b.c', refreshToken: 'd.e.f', claims: {} }],
    ]);
    const waits: number[] = [];
    try {
      const result = await loginAt(server, {
        sleep: async (ms) => {
          waits.push(ms);
        },
      });
      expect(result.ok).toBe(true);
      // 5 s first; slow_down to 10 holds; a slow_down without an interval adds 5.
      expect(waits).toEqual([5000, 5000, 10_000, 10_000, 15_000]);
    } finally {
      server.close();
    }
  });

  it('stops at once on expired_token, naming it in words', async () => {
    const server = await standIn([[400, { error: 'expired_token' }]]);
    try {
      const result = await loginAt(server);
      expect(result).toEqual({
        ok: false,
        error: 'expired_token',
        words: expect.stringContaining('expired'),
      });
    } finally {
      server.close();
    }
  });

  it('waits out a 503 server_error as Retry-After says, and stops at once on a failed issuance (500 server_error)', async () => {
    // The spec's server_error: "Token issuance failed. Stop polling and start a new authorization." A 503 with
    // Retry-After is the host saying PostgreSQL or Redis is out and the authorization untouched: wait and poll again.
    const server = await standIn([
      [503, { error: 'server_error' }, { 'retry-after': '12' }],
      [400, { error: 'authorization_pending' }],
      [500, { error: 'server_error' }],
      [200, { applicationAnchor: 'an-app', accessToken: 'a.b.c', refreshToken: 'd.e.f', claims: {} }],
    ]);
    const waits: number[] = [];
    try {
      const result = await loginAt(server, { sleep: async (ms) => void waits.push(ms) });
      expect(result).toEqual({
        ok: false,
        error: 'server_error',
        words: expect.stringContaining('Start a new sign-in'),
      });
      expect(waits).toEqual([5000, 12_000, 12_000]);
      // No poll after the failed issuance.
      expect(server.seen.filter((u) => u === '/device-token')).toHaveLength(3);
    } finally {
      server.close();
    }
  });

  it('an outage that outlasts the code ends as expired_token, not as a failed issuance', async () => {
    const outage: [number, unknown, Record<string, string>][] = Array.from({ length: 10 }, () => [
      503,
      { error: 'server_error' },
      { 'retry-after': '60' },
    ]);
    const server = await standIn(outage, { expiresIn: 120 });
    let now = Date.now();
    try {
      const result = await loginAt(server, {
        now: () => now,
        sleep: async (ms) => {
          now += ms;
        },
      });
      expect(result).toEqual({
        ok: false,
        error: 'expired_token',
        words: expect.stringContaining('expired'),
      });
      expect(server.seen.filter((u) => u === '/device-token').length).toBeLessThanOrEqual(3);
    } finally {
      server.close();
    }
  });

  it('refuses to show or poll for a verification URI with control characters or over plain HTTP', async () => {
    for (const bad of ['https://evil.example/\u001b[2J', 'http://device.example.com/device']) {
      const server = await standIn([], { verificationUri: bad });
      const shown: string[] = [];
      try {
        const result = await loginAt(server, { show: (t) => shown.push(t) });
        expect(result.ok).toBe(false);
        expect(shown).toEqual([]);
        expect(server.seen).toEqual(['/device-authorize']);
      } finally {
        server.close();
      }
    }
    expect(isSafeVerificationUri('https://user:pw@device.example.com/device')).toBe(false);
    expect(isSafeVerificationUri('https://device.example.com/device')).toBe(true);
  });
});
