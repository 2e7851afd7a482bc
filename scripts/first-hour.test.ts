// A newcomer's first hour (#29), as a person does it: `pnpm demo`, then `pnpm start` (the real fleet, its worker and
// the maildev mailbox, every one on a free port through its URL), then in headless Chromium with a virtual passkey
// the hosts' landing pages, and a sign-up through each flow `pnpm demo` prints (connect through the example
// application, its /oidc/login, and `pnpm device-login --app demo-app` with the device page), each code read from
// the mailbox's page, each flow ending signed in; and the demo's printed curls run as they are. Screenshots go to test-artifacts/first-hour/.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import type { HostName } from '@svc/platform';
import {
  addAuthenticator,
  freePort,
  launchChromium,
  openPrivateDb,
  type PrivateDb,
  testEnv,
  uniqueName,
} from '@svc/testkit';
import { exampleConfigFromEnv } from '../examples/web-app/src/config';
import { createWebApp } from '../examples/web-app/src/web-app';
import { runDemo } from './demo-provision';

// playwright-core's types through testkit's launcher (the root package does not depend on playwright-core itself).
type Browser = Awaited<ReturnType<typeof launchChromium>>;
type BrowserContext = Awaited<ReturnType<Browser['newContext']>>;
type Page = Awaited<ReturnType<BrowserContext['newPage']>>;

const ROOT = path.resolve(__dirname, '..');
const ARTIFACTS = path.join(ROOT, 'test-artifacts', 'first-hour');
const HOSTS: HostName[] = ['connect', 'native', 'session', 'device', 'oidc'];
/** Every host `pnpm start` starts: the sign-in hosts and the management host (an API, no landing page). */
const FLEET: HostName[] = [...HOSTS, 'management'];

/** A child process started in its own process group, with every output line kept (and waited on). */
interface Running {
  child: ChildProcess;
  lines: string[];
  stdout: string[];
  exited: Promise<number | null>;
}

function run(args: string[], env: NodeJS.ProcessEnv): Running {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
    cwd: ROOT,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const stdout: string[] = [];
  readline.createInterface({ input: child.stdout! }).on('line', (l) => {
    lines.push(l);
    stdout.push(l);
  });
  readline.createInterface({ input: child.stderr! }).on('line', (l) => lines.push(l));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return { child, lines, stdout, exited };
}

/** Waits until `ok()` holds, or fails naming `what` with the output so far. */
async function until(what: string, ok: () => boolean, out: string[], ms = 120_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen:\n${out.slice(-40).join('\n')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

let priv: PrivateDb;
let demoDir: string;
let fleet: Running | undefined;
let example: http.Server | undefined;
let browser: Browser | undefined;
const urls = {} as Record<HostName | 'example' | 'mailbox', string>;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  priv = await openPrivateDb({ prefix: 'firsthour' });
  demoDir = mkdtempSync(path.join(os.tmpdir(), 'first-hour-'));
  for (const host of FLEET) urls[host] = `http://localhost:${await freePort()}`;
  const examplePort = await freePort();
  const mailboxPort = await freePort();
  let smtpPort = await freePort();
  while (smtpPort === mailboxPort) smtpPort = await freePort();
  urls.example = `http://localhost:${examplePort}`;
  urls.mailbox = `http://localhost:${mailboxPort}`;
  const { SMTP_URL: _url, SMTP_HOST: _host, PORT: _port, ...inherited } = process.env;
  env = {
    ...inherited,
    ...testEnv({
      DATABASE_URL: priv.url,
      LOG_LEVEL: 'info',
      ...Object.fromEntries(FLEET.map((h) => [`${h.toUpperCase()}_URL`, urls[h]])),
      DEV_MAILBOX_PORT: String(mailboxPort),
      DEV_MAILBOX_SMTP_PORT: String(smtpPort),
      DEMO_DIR: demoDir,
      EXAMPLE_PORT: String(examplePort),
      RATE_LIMIT_NAMESPACE: uniqueName('first-hour-rl'),
      WORKER_QUEUE_NAME: uniqueName('first-hour-jobs'),
    }),
  };
}, 60_000);

afterAll(async () => {
  await browser?.close();
  if (example) {
    example.closeAllConnections();
    await new Promise((r) => example!.close(r));
  }
  if (fleet && fleet.child.exitCode === null) {
    process.kill(-fleet.child.pid!, 'SIGTERM');
    await fleet.exited;
  }
  await priv.drop();
  rmSync(demoDir, { recursive: true, force: true });
}, 60_000);

/** Reads the newest code mailed to `email` the way a person does: on the mailbox page, opening the mail. */
async function codeFromMailbox(context: BrowserContext, email: string, shot: string): Promise<string> {
  const page = await context.newPage();
  try {
    await page.goto(`${urls.mailbox}/`);
    const mail = page.locator('.email-item', { hasText: email }).first();
    await mail.waitFor({ timeout: 30_000 });
    await mail.click();
    const text = page.getByText(/Your code is \d{6}/).first();
    await text.waitFor();
    await page.screenshot({ path: path.join(ARTIFACTS, `${shot}.png`), fullPage: true });
    const code = /Your code is (\d{6})/.exec(await text.innerText())?.[1];
    if (!code) throw new Error(`no code in the mail to ${email}`);
    return code;
  } finally {
    await page.close();
  }
}

/**
 * A sign-up on any host's sign-in page: the email, the code from the mailbox, a new passkey, then the basic terms
 * and what the application may see (shared), until `done` shows.
 */
async function signUp(context: BrowserContext, page: Page, name: string, done: () => Promise<unknown>) {
  const email = `${uniqueName(name)}@example.com`;
  await page.getByLabel('Email address').fill(email);
  await page.getByRole('button', { name: 'Send me a code' }).click();
  await page.getByLabel('Code').fill(await codeFromMailbox(context, email, `${name}-mailbox`));
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByRole('button', { name: 'Create a passkey' }).click();
  await page.getByLabel('I have read and accept the basic terms').check();
  await page.getByRole('button', { name: 'Accept and continue' }).click();
  await page.getByRole('radio', { name: 'Share', exact: true }).check();
  await page.getByRole('button', { name: 'Save and continue' }).click();
  await done();
  return email;
}

/** A fresh browser profile with its own passkey authenticator. */
async function person(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser!.newContext();
  const page = await context.newPage();
  await addAuthenticator(context, page);
  return { context, page };
}

test('pnpm demo, pnpm start, then a person signs up in Chromium through connect, OIDC and device', async () => {
  const demo = await runDemo(env);
  for (const line of [`${urls.example}/`, `${urls.example}/oidc/login`, 'pnpm device-login --app demo-app'])
    expect(demo.output).toContain(line);

  // pnpm start: quiet start-up (no warning while connecting), one line per host naming its URL.
  fleet = run(['scripts/start-fleet.ts'], env);
  const listening = (h: HostName) => fleet!.lines.some((l) => l.includes(`${h} listening at ${urls[h]}/`));
  await until(
    'every host listening',
    () => FLEET.every(listening) || fleet!.child.exitCode !== null,
    fleet.lines,
  );
  expect(fleet.child.exitCode).toBeNull();
  // Then, once every host's /readyz answers, one line saying the fleet is ready.
  await until(
    'the fleet ready',
    () => fleet!.lines.some((l) => l.startsWith('[fleet] ready: ')),
    fleet.lines,
  );
  expect(fleet.lines).toContainEqual(expect.stringContaining(`development mailbox at ${urls.mailbox}/`));
  expect(fleet.lines.filter((l) => /"level":(4|5|6)\d/.test(l))).toEqual([]);
  // Every line names who says it (the migration result on an up-to-date database says nothing).
  expect(
    fleet.lines.filter(
      (l) => !/^\[(fleet|mailbox|worker|connect|native|session|device|oidc|management)\] /.test(l),
    ),
  ).toEqual([]);

  // The demo's curls, as printed: a token pair by direct issue, introspected, refreshed; the JWK Set. One answer a line.
  const curls = demo.output
    .split('\n')
    .filter((l) => /^ {2}(TOKENS=|curl )/.test(l))
    .join('\n');
  const answers = spawnSync('bash', ['-euo', 'pipefail', '-c', curls], { env, encoding: 'utf8' });
  expect(answers.status).toBe(0);
  const [introspected, refreshed, jwks] = answers.stdout
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l));
  expect(introspected).toMatchObject({ status: 'active' });
  expect(refreshed).toEqual(expect.objectContaining({ accessToken: expect.any(String) }));
  expect(jwks.keys.length).toBeGreaterThan(0);

  // pnpm example, on what the demo wrote.
  const config = exampleConfigFromEnv({ ...env, PORT: env.EXAMPLE_PORT });
  expect(config.problems).toEqual([]);
  example = http.createServer(createWebApp(config));
  await new Promise<void>((r) => example!.listen(Number(env.EXAMPLE_PORT), '127.0.0.1', () => r()));

  browser = await launchChromium(ARTIFACTS);
  const visitor = await browser.newPage();
  for (const host of HOSTS) {
    await visitor.goto(`${urls[host]}/`);
    await expect(visitor.getByRole('heading', { level: 1 }).innerText()).resolves.toBe(
      `Sign-in service: the ${host} host`,
    );
    await visitor.getByRole('link', { name: /Development mailbox/ }).waitFor();
    await visitor.screenshot({ path: path.join(ARTIFACTS, `landing-${host}.png`), fullPage: true });
  }
  await visitor.close();

  // connect, through the example application's "Sign in"; OpenID Connect, through its /oidc/login.
  const throughExample = [
    {
      name: 'connect',
      start: async (page: Page) => {
        await page.goto(`${urls.example}/`);
        await page.getByRole('link', { name: 'Sign in', exact: true }).click();
      },
      says: 'Signed in through the sign-in service.',
    },
    {
      name: 'oidc',
      start: async (page: Page) => {
        await page.goto(`${urls.example}/oidc/login`);
      },
      says: 'Signed in through OpenID Connect.',
    },
  ];
  for (const way of throughExample) {
    const { context, page } = await person();
    await way.start(page);
    const email = await signUp(context, page, way.name, () =>
      page.getByRole('heading', { name: 'You are signed in' }).waitFor(),
    );
    await expect(page.getByText(way.says).isVisible()).resolves.toBe(true);
    await expect(page.getByText(email).isVisible()).resolves.toBe(true);
    await page.screenshot({ path: path.join(ARTIFACTS, `${way.name}-last.png`), fullPage: true });
    await context.close();
  }

  // The device flow: pnpm device-login in a terminal, the page it names in the browser.
  const cli = run(['tools/device-login/src/main.ts', '--app', 'demo-app', '--no-qr'], env);
  try {
    const said = () => cli.lines.join('\n');
    await until('device-login naming the page', () => /enter the code\s+\S+/.test(said()), cli.lines, 60_000);
    const uri = new RegExp(`open\\s+(${urls.device}/device)\\b`).exec(said())?.[1];
    const code = /enter the code\s+([A-Z0-9]{4}-[A-Z0-9]{4})/.exec(said())?.[1];
    expect({ uri, code: Boolean(code) }).toEqual({ uri: `${urls.device}/device`, code: true });
    const three = await person();
    await three.page.goto(uri!);
    await three.page.getByLabel('Code').fill(code!);
    await three.page.getByRole('button', { name: 'Continue' }).click();
    await signUp(three.context, three.page, 'device', () =>
      three.page.getByRole('heading', { name: 'Sign in on this device?' }).waitFor(),
    );
    await three.page.getByRole('button', { name: 'Approve' }).click();
    await three.page.getByRole('heading', { name: 'Device approved' }).waitFor();
    await three.page.screenshot({ path: path.join(ARTIFACTS, 'device-last.png'), fullPage: true });
    await three.context.close();
    expect(await cli.exited).toBe(0);
    expect(JSON.parse(cli.stdout.join('\n'))).toMatchObject({ applicationAnchor: 'demo-app' });
    expect(said()).toContain('Approved: signed in.');
  } finally {
    if (cli.child.exitCode === null) process.kill(-cli.child.pid!, 'SIGTERM');
  }
}, 240_000);
