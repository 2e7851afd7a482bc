// POST /device-authorize over HTTP against the real app: the response shapes of the spec, the refusals, the
// stored hash (never the code), user codes unique among live codes, verification URIs, and the rate limit.
import { createHash } from 'node:crypto';
import { normalizeUserCode, USER_CODE_ALPHABET, verificationBaseProblem } from '@svc/device-grant';
import { setAppStatus } from '@svc/provisioning';
import { postJson } from '@svc/testkit';
import { authorize, type DeviceHarness, provisionDeviceApp, startDevice } from './support';

let h: DeviceHarness;
beforeAll(async () => {
  h = await startDevice();
});
afterAll(() => h.close());

describe('POST /device-authorize', () => {
  it('answers the spec shape with no-store, and stores only the SHA-256 of the device code', async () => {
    const app = await provisionDeviceApp(h.infra);
    const res = await authorize(h, app.anchor, { 'user-agent': 'Living-room TV/1.0' });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('pragma')).toBe('no-cache');
    expect(Object.keys(res.body).sort()).toEqual(
      [
        'applicationAnchor',
        'deviceCode',
        'userCode',
        'verificationUri',
        'verificationUriComplete',
        'expiresIn',
        'interval',
      ].sort(),
    );
    expect(res.body.applicationAnchor).toBe(app.anchor);
    expect(res.body.deviceCode).toMatch(/^dvc_[0-9a-f]{64}$/);
    expect(res.body.userCode).toMatch(/^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/);
    expect(res.body.expiresIn).toBe(600);
    expect(res.body.interval).toBe(5);
    expect(res.body.verificationUri).toBe(`${h.deps.config.deviceUrl}/device`);
    expect(res.body.verificationUriComplete).toBe(
      `${h.deps.config.deviceUrl}/device?user_code=${res.body.userCode}`,
    );
    const rows = await h.infra.db.deviceAuthorization.findMany({
      where: { applicationId: app.applicationId },
    });
    expect(rows).toHaveLength(1);
    const row = rows[0]!;
    expect(row.deviceCodeHash).toBe(createHash('sha256').update(res.body.deviceCode).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(res.body.deviceCode.slice(4));
    expect(row.userCode).toBe(res.body.userCode);
    expect(row.state).toBe('PENDING');
    expect(row.deviceUserAgent).toBe('Living-room TV/1.0');
    expect(row.deviceAddress).toBe('127.0.0.1');
    expect(row.expiresAt.getTime() - h.clock()).toBe(600_000);
  });

  it('gives every authorization its own device code and user code', async () => {
    const app = await provisionDeviceApp(h.infra);
    const answers = await Promise.all(Array.from({ length: 20 }, () => authorize(h, app.anchor)));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(new Set(answers.map((a) => a.body.deviceCode)).size).toBe(20);
    expect(new Set(answers.map((a) => a.body.userCode)).size).toBe(20);
  });

  it('draws another user code when the live one collides, and refuses a live duplicate in the database', async () => {
    const app = await provisionDeviceApp(h.infra);
    const first = await authorize(h, app.anchor);
    const insert = (code: string, hash: string) =>
      h.deps.ports.authorizations.insert({
        deviceCodeHash: hash,
        userCode: code,
        applicationId: app.applicationId,
        interval: 5,
        createdAt: new Date(),
        expiresAt: new Date(Date.now() + 60_000),
        deviceAddress: null,
        deviceUserAgent: null,
        oidcClientId: null,
        scope: null,
      });
    // The same code while the first is live: nothing is inserted.
    expect(await insert(first.body.userCode, `x${Date.now()}a`)).toBe(false);
    // Once the first is decided (not live), the code is free again.
    await h.infra.db.deviceAuthorization.updateMany({
      where: { userCode: first.body.userCode, applicationId: app.applicationId },
      data: { state: 'DENIED' },
    });
    expect(await insert(first.body.userCode, `x${Date.now()}b`)).toBe(true);
  });

  it('refuses an unknown anchor (404), an application that is not active, and one without the DEVICE_CODE return rule', async () => {
    const unknown = await authorize(h, 'no-such-app-anchor');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ reason: 'ApplicationNotFound' });

    const suspended = await provisionDeviceApp(h.infra);
    await setAppStatus(h.infra.provisioning, suspended.anchor, 'SUSPENDED');
    const notActive = await authorize(h, suspended.anchor);
    expect(notActive.status).toBe(403);
    expect(notActive.body).toEqual({ reason: 'ApplicationNotActive' });

    const noReturnRule = await provisionDeviceApp(h.infra, { returnMethods: ['STATUS_POLL'] });
    const l3 = await authorize(h, noReturnRule.anchor);
    expect(l3.status).toBe(403);
    expect(l3.body).toEqual({ reason: 'Layer3Denied' });

    for (const app of [suspended, noReturnRule]) {
      expect(
        await h.infra.db.deviceAuthorization.count({ where: { applicationId: app.applicationId } }),
      ).toBe(0);
    }
  });

  it('refuses malformed bodies with InvalidBody', async () => {
    for (const body of [
      {},
      { applicationAnchor: 'AB' },
      { applicationAnchor: 'Upper-Case' },
      { applicationAnchor: 'x'.repeat(65) },
      { applicationAnchor: 'good-anchor', extra: 1 },
      { applicationAnchor: 7 },
      '[]',
      'not json',
    ]) {
      const res = await postJson(`${h.url}/device-authorize`, body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ reason: 'InvalidBody' });
    }
  });

  it('limits calls per client address through Redis: 429 with Retry-After, shared by replicas', async () => {
    const limited = await startDevice({ rateLimit: { authorizePerAddress: 3, windowSeconds: 60 } });
    const replica = await startDevice(
      { rateLimit: { authorizePerAddress: 3, windowSeconds: 60 } },
      { clock: limited.clock, redisPrefix: limited.deps.config.redisPrefix },
    );
    try {
      const app = await provisionDeviceApp(limited.infra);
      const statuses = [];
      for (const host of [limited, replica, limited, replica])
        statuses.push(await authorize(host, app.anchor));
      expect(statuses.map((s) => s.status)).toEqual([200, 200, 200, 429]);
      expect(statuses[3]!.body).toEqual({ reason: 'TooManyAttempts' });
      expect(Number(statuses[3]!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    } finally {
      await replica.close();
      await limited.close();
    }
  });

  it('takes expiresIn and interval from configuration', async () => {
    const custom = await startDevice({ codeTtlSeconds: 42, pollIntervalSeconds: 7 });
    try {
      const app = await provisionDeviceApp(custom.infra);
      const res = await authorize(custom, app.anchor);
      expect(res.body.expiresIn).toBe(42);
      expect(res.body.interval).toBe(7);
    } finally {
      await custom.close();
    }
  });
});

describe('codes and verification URIs', () => {
  it('uses the 32-symbol alphabet without I, L, O, U', () => {
    expect(USER_CODE_ALPHABET).toHaveLength(32);
    expect(USER_CODE_ALPHABET).not.toMatch(/[ILOU]/);
  });

  it('normalizes typed codes: case, spaces and hyphens ignored, O to 0, I and L to 1', () => {
    expect(normalizeUserCode('abcd-efgh')).toBe('ABCD-EFGH');
    expect(normalizeUserCode(' ab cd efgh ')).toBe('ABCD-EFGH');
    expect(normalizeUserCode('OIL2-3456')).toBe('0112-3456');
    expect(normalizeUserCode('abcdefgh')).toBe('ABCD-EFGH');
    expect(normalizeUserCode('ABCD-EFGU')).toBeUndefined();
    expect(normalizeUserCode('ABCD-EFG')).toBeUndefined();
    expect(normalizeUserCode('ABCD-EFGHJ')).toBeUndefined();
    expect(normalizeUserCode('ABCD\u0000EFGH')).toBeUndefined();
  });

  it('accepts HTTPS bases and loopback HTTP only, without credentials or control characters', () => {
    expect(verificationBaseProblem('https://device.example.com')).toBeUndefined();
    expect(verificationBaseProblem('https://example.com/tv')).toBeUndefined();
    for (const ok of ['http://localhost:4104', 'http://127.0.0.1:4104', 'http://[::1]:4104']) {
      expect(verificationBaseProblem(ok)).toBeUndefined();
    }
    for (const bad of [
      'http://device.example.com',
      'https://user:pw@device.example.com',
      'https://device.example.com/\u0007',
      ' https://device.example.com',
      'https://device.example.com?x=1',
      'ftp://device.example.com',
      'device.example.com',
    ]) {
      expect(verificationBaseProblem(bad)).toBeDefined();
    }
  });
});
