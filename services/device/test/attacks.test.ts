// An attacker's view of the device host, each attack one test against the running host: the approval page refuses
// framing; a forged post (code entry, approve, deny) from another site or browser is refused before it selects or
// decides anything; user-code guesses are limited atomically across replicas under concurrency; one authorization
// takes exactly one decision however many browsers race, and none after it expired.

import { deviceCodeHash } from '@svc/device-grant';
import { testEnv } from '@svc/testkit';
import { deviceConfigFromEnv } from '../src/config';
import { approveDeviceAuthorization, denyDeviceAuthorization } from '../src/domain/approval';
import {
  authorize,
  type DeviceHarness,
  openDevicePage,
  poll,
  provisionAccount,
  provisionDeviceApp,
  startDevice,
  uniqueName,
} from './support';

jest.setTimeout(60_000);

const PER_ADDRESS = 5;
let a: DeviceHarness;
let b: DeviceHarness;
let app: Awaited<ReturnType<typeof provisionDeviceApp>>;

/** Two replicas over one Redis prefix, one user-code guess namespace and one clock. */
async function replicas(): Promise<[DeviceHarness, DeviceHarness]> {
  const base = deviceConfigFromEnv(testEnv()).pages;
  const redisPrefix = uniqueName('dva');
  const pages = {
    ...base,
    rateLimitNamespace: `${redisPrefix}:pages`,
    codeGuesses: { ...base.codeGuesses, perAddress: PER_ADDRESS },
  };
  const first = await startDevice({ redisPrefix, pages });
  return [first, await startDevice({ pages }, { clock: first.clock, redisPrefix })];
}

beforeAll(async () => {
  [a, b] = await replicas();
  app = await provisionDeviceApp(a.infra);
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});

const post = (
  h: DeviceHarness,
  path: string,
  body: Record<string, string>,
  headers: Record<string, string>,
) =>
  fetch(`${h.url}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(body).toString(),
  });

test('the approval page refuses framing (clickjacking) and is never cached', async () => {
  const { page } = await openDevicePage(a);
  expect(page.status).toBe(200);
  const policy = page.headers.get('content-security-policy') ?? '';
  expect(policy).toMatch(/(^|;\s*)frame-ancestors 'none'(;|$)/);
  expect(policy).toMatch(/(^|;\s*)form-action 'self'(;|$)/);
  expect(page.headers.get('cache-control')).toBe('no-store');
});

test("the page's assets: a name of an object's inherited member is a plain 404, not a server error", async () => {
  for (const name of ['constructor', '__proto__', 'toString', 'valueOf']) {
    const res = await fetch(`${a.url}/assets/${name}`);
    expect([name, res.status]).toEqual([name, 404]);
  }
  expect((await fetch(`${a.url}/assets/signin.js`)).status).toBe(200);
});

test("a forged code entry cannot plant the attacker's code in a victim's browser", async () => {
  const started = (await authorize(a, app.anchor)).body as { userCode: string };
  const victim = await openDevicePage(a);
  expect(victim.csrf).toMatch(/.{20,}/);
  const forged = [
    post(a, '/device', { code: started.userCode }, { cookie: victim.cookie }),
    post(
      a,
      '/device',
      { code: started.userCode, _csrf: 'x'.repeat(victim.csrf.length) },
      { cookie: victim.cookie },
    ),
    post(
      a,
      '/device',
      { code: started.userCode, _csrf: victim.csrf },
      { cookie: victim.cookie, origin: 'https://evil.example' },
    ),
  ];
  for (const res of await Promise.all(forged)) expect(res.status).toBe(403);
  // The victim's page still asks for a code: nothing was selected.
  const page = await fetch(`${a.url}/device`, {
    headers: { cookie: victim.cookie, 'accept-language': 'en-US' },
  });
  expect(await page.text()).toContain('name="code"');
});

test('forged approve and deny are refused and leave the authorization pending', async () => {
  const started = (await authorize(a, app.anchor)).body as { userCode: string; deviceCode: string };
  const victim = await openDevicePage(a);
  // The victim selected the code (genuinely, with the token); an attacker's page then posts the decisions.
  const selected = await post(
    a,
    '/device',
    { code: started.userCode, _csrf: victim.csrf },
    { cookie: victim.cookie },
  );
  expect(selected.status).toBe(303);
  for (const path of ['/device/approve', '/device/deny']) {
    const tries: Record<string, string>[] = [
      { cookie: victim.cookie },
      { cookie: victim.cookie, origin: 'https://evil.example' },
    ];
    for (const headers of tries) {
      const res = await post(a, path, { _csrf: headers.origin ? victim.csrf : 'forged' }, headers);
      expect([path, res.status]).toEqual([path, 403]);
    }
  }
  const row = await a.infra.db.deviceAuthorization.findFirstOrThrow({
    where: { deviceCodeHash: deviceCodeHash(started.deviceCode) },
  });
  expect(row.state).toBe('PENDING');
  expect((await poll(a, started.deviceCode)).body).toEqual({ error: 'authorization_pending' });
});

test('user-code guesses: exactly the limit gets through across two replicas at once (RFC 8628 5.1)', async () => {
  // Replicas of their own: the other tests' entries from this address do not count here.
  const [a, b] = await replicas();
  try {
    await guessesRace(a, b);
  } finally {
    await b.close();
    await a.close();
  }
});

async function guessesRace(a: DeviceHarness, b: DeviceHarness) {
  const browsers = await Promise.all(Array.from({ length: 12 }, (_, i) => openDevicePage(i % 2 ? b : a)));
  const answers = await Promise.all(
    browsers.map((br, i) =>
      post(i % 2 ? b : a, '/device', { code: 'ZZZZ-ZZZZ', _csrf: br.csrf }, { cookie: br.cookie }),
    ),
  );
  const statuses = answers.map((r) => r.status).sort();
  expect(statuses.filter((s) => s === 303)).toHaveLength(PER_ADDRESS);
  expect(statuses.filter((s) => s === 429)).toHaveLength(12 - PER_ADDRESS);
  expect(answers.find((r) => r.status === 429)?.headers.get('retry-after')).toMatch(/^\d+$/);
}

test('thirty wrong user codes at once, split over two replicas, are limited exactly as on one', async () => {
  /** Thirty browsers each post a wrong code at once, in turn to `hosts`; then a real code is entered on each. */
  async function race(hosts: DeviceHarness[]) {
    const on = (i: number) => hosts[i % hosts.length] as DeviceHarness;
    const browsers = await Promise.all(Array.from({ length: 30 }, (_, i) => openDevicePage(on(i))));
    const answers = await Promise.all(
      browsers.map((br, i) =>
        post(on(i), '/device', { code: 'ZZZZ-ZZZZ', _csrf: br.csrf }, { cookie: br.cookie }),
      ),
    );
    const started = (await authorize(hosts[0] as DeviceHarness, app.anchor)).body as { userCode: string };
    const after = await Promise.all(
      hosts.map((h, i) =>
        post(
          h,
          '/device',
          { code: started.userCode, _csrf: browsers[i]?.csrf as string },
          {
            cookie: browsers[i]?.cookie as string,
          },
        ),
      ),
    );
    return {
      through: answers.filter((r) => r.status === 303).length,
      limited: answers.filter((r) => r.status === 429).length,
      after: after.map((r) => r.status),
    };
  }
  const [alone, unused] = await replicas();
  const [a2, b2] = await replicas();
  try {
    const one = await race([alone]);
    const two = await race([a2, b2]);
    expect(one).toEqual({ through: PER_ADDRESS, limited: 30 - PER_ADDRESS, after: [429] });
    expect(two).toEqual({ through: PER_ADDRESS, limited: 30 - PER_ADDRESS, after: [429, 429] });
  } finally {
    await Promise.all([alone, unused, a2, b2].map((h) => h.close()));
  }
});

describe('decisions', () => {
  async function pending() {
    const started = (await authorize(a, app.anchor)).body as { deviceCode: string };
    const row = await a.infra.db.deviceAuthorization.findFirstOrThrow({
      where: { deviceCodeHash: deviceCodeHash(started.deviceCode) },
    });
    return { id: row.id, deviceCode: started.deviceCode };
  }

  async function approval(accountId: string) {
    const account = await a.infra.db.account.findUniqueOrThrow({ where: { id: accountId } });
    return { accountId, authorityVersion: account.authorityVersion, authTime: new Date(a.clock()) };
  }

  test('two browsers approving and one denying at once: exactly one decision, and it holds', async () => {
    const { id, deviceCode } = await pending();
    const one = await provisionAccount(a.infra);
    const two = await provisionAccount(a.infra);
    const outcomes = await Promise.all([
      approveDeviceAuthorization(a.deps, id, await approval(one.id)),
      approveDeviceAuthorization(b.deps, id, await approval(two.id)),
      denyDeviceAuthorization(b.deps, id),
    ]);
    expect(outcomes.filter((o) => o !== 'gone')).toHaveLength(1);
    const row = await a.infra.db.deviceAuthorization.findUniqueOrThrow({ where: { id } });
    if (outcomes.includes('denied')) {
      expect(row.state).toBe('DENIED');
      expect((await poll(a, deviceCode)).body).toEqual({ error: 'access_denied' });
    } else {
      const winner = outcomes[0] === 'approved' ? one.id : two.id;
      expect([row.state, row.accountId]).toEqual(['APPROVED', winner]);
    }
    // Any later decision is gone: a denial is not turned into an approval, nor an approval into another.
    expect(await approveDeviceAuthorization(a.deps, id, await approval(one.id))).toBe('gone');
    expect(await denyDeviceAuthorization(a.deps, id)).toBe('gone');
  });

  test('an expired authorization takes no decision', async () => {
    const { id, deviceCode } = await pending();
    const account = await provisionAccount(a.infra);
    a.clock.advance((a.deps.config.codeTtlSeconds + 1) * 1000);
    expect(await approveDeviceAuthorization(a.deps, id, await approval(account.id))).toBe('gone');
    expect(await denyDeviceAuthorization(a.deps, id)).toBe('gone');
    expect((await a.infra.db.deviceAuthorization.findUniqueOrThrow({ where: { id } })).state).toBe('PENDING');
    expect((await poll(a, deviceCode)).body).toEqual({ error: 'expired_token' });
  });
});
