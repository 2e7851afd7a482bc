// POST /device-token over HTTP against the real app: every polling error of the spec, the RFC 8628 polling
// discipline moving a clock (never sleeping), denial, expiry, and redemption through the issuance core with the
// checks made again at redemption.

import { deviceCodeHash } from '@svc/device-grant';
import { createMetrics } from '@svc/platform';
import { setAccountStatus, setAppStatus } from '@svc/provisioning';
import { postJson, uniqueName } from '@svc/testkit';
import { denyDeviceAuthorization, findPendingAuthorization } from '../src/domain/approval';
import {
  approve,
  authorize,
  type DeviceHarness,
  poll,
  provisionAccount,
  provisionDeviceApp,
  startDevice,
} from './support';

let h: DeviceHarness;
beforeAll(async () => {
  h = await startDevice();
});
afterAll(() => h.close());

async function started(harness = h) {
  const app = await provisionDeviceApp(harness.infra);
  const res = await authorize(harness, app.anchor);
  expect(res.status).toBe(200);
  return { app, ...(res.body as { deviceCode: string; userCode: string; interval: number }) };
}

function expectError(res: Awaited<ReturnType<typeof poll>>, error: string, status = 400) {
  expect(res.status).toBe(status);
  expect(res.body).toEqual({ error });
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(res.headers.get('pragma')).toBe('no-cache');
}

describe('POST /device-token: bodies and unknown codes', () => {
  it('answers invalid_request for every malformed body, never a reason', async () => {
    const good = `dvc_${'a'.repeat(64)}`;
    for (const body of [
      {},
      { deviceCode: '' },
      { deviceCode: `dvc_${'a'.repeat(63)}` },
      { deviceCode: `dvc_${'A'.repeat(64)}` },
      { deviceCode: `dvx_${'a'.repeat(64)}` },
      { deviceCode: good, extra: true },
      { deviceCode: 42 },
      '[]',
      'null',
      '{"deviceCode":',
    ]) {
      expectError(await postJson(`${h.url}/device-token`, body), 'invalid_request');
    }
    const wrongType = await fetch(`${h.url}/device-token`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify({ deviceCode: good }),
    });
    expect(wrongType.status).toBe(400);
    expect(await wrongType.json()).toEqual({ error: 'invalid_request' });
    const huge = await postJson(`${h.url}/device-token`, { deviceCode: good, pad: 'x'.repeat(10_000) });
    expectError(huge, 'invalid_request');
  });

  it('refuses a live code sent with an extra own __proto__ member (found by the hostile-input suite)', async () => {
    const { deviceCode } = await started();
    const res = await postJson(`${h.url}/device-token`, `{"deviceCode":"${deviceCode}","__proto__":{"x":1}}`);
    expectError(res, 'invalid_request');
    expectError(await poll(h, deviceCode), 'authorization_pending');
  });

  it('answers invalid_request for a well-formed code nobody issued', async () => {
    expectError(await poll(h, `dvc_${'0'.repeat(64)}`), 'invalid_request');
  });
});

describe('POST /device-token: device_polls_total', () => {
  it('counts every poll once by its answer', async () => {
    const counted = await startDevice();
    const metrics = createMetrics(uniqueName('device-metrics'));
    counted.deps.metrics = metrics;
    const value = async (answer: string) =>
      (await metrics.registry.getSingleMetric('device_polls_total')?.get())?.values.find(
        (v) => v.labels.answer === answer,
      )?.value ?? 0;
    try {
      const { deviceCode, userCode } = await started(counted);
      await poll(counted, deviceCode);
      counted.clock.advance(1000);
      await poll(counted, deviceCode);
      await postJson(`${counted.url}/device-token`, { deviceCode: 'nope' });
      await poll(counted, `dvc_${'e'.repeat(64)}`);
      await approve(counted, userCode);
      counted.clock.advance(10_000);
      expect((await poll(counted, deviceCode)).status).toBe(200);
      expect(await value('authorization_pending')).toBe(1);
      expect(await value('slow_down')).toBe(1);
      expect(await value('invalid')).toBe(2);
      expect(await value('approved')).toBe(1);
    } finally {
      await counted.close();
    }
  });
});

describe('POST /device-token: a flood of invented codes', () => {
  it('slows an address down before PostgreSQL once it polled too many codes Redis does not know', async () => {
    const limited = await startDevice({ rateLimit: { unknownPerAddress: 3 } });
    try {
      const known = await started(limited);
      for (let i = 0; i < 3; i++) {
        expectError(await poll(limited, `dvc_${String(i).repeat(64)}`), 'invalid_request');
      }
      const slowed = await poll(limited, `dvc_${'9'.repeat(64)}`);
      expect(slowed.status).toBe(400);
      expect(slowed.body).toEqual({ error: 'slow_down', interval: 10 });
      // Codes Redis knows are untouched by the limit: the hot path never counts.
      expectError(await poll(limited, known.deviceCode), 'authorization_pending');
      // A real code whose Redis state was lost is not read from PostgreSQL either while the limit holds...
      await limited.infra.redis.del(
        `${limited.deps.config.redisPrefix}:poll:${deviceCodeHash(known.deviceCode)}`,
      );
      expect((await poll(limited, known.deviceCode)).body).toEqual({ error: 'slow_down', interval: 10 });
      // ...and it is slow_down, not a final error: the device polls again and is answered once the window passed.
      await limited.infra.redis.del(
        ...(await limited.infra.redis.keys(`rl:${limited.deps.config.redisPrefix}:unknown*`)),
      );
      expectError(await poll(limited, known.deviceCode), 'authorization_pending');
    } finally {
      await limited.close();
    }
  });
});

describe('POST /device-token: polling discipline (RFC 8628 section 3.5)', () => {
  it('pending, then slow_down 10, then the 10 s interval holding, then slow_down 15', async () => {
    const { deviceCode, interval } = await started();
    expect(interval).toBe(5);
    // The first poll is never throttled, even right after /device-authorize.
    expectError(await poll(h, deviceCode), 'authorization_pending');
    h.clock.advance(1000);
    const slow = await poll(h, deviceCode);
    expect(slow.status).toBe(400);
    expect(slow.body).toEqual({ error: 'slow_down', interval: 10 });
    // The refused poll did not move the bar: 10 s after the last accepted poll is on time.
    h.clock.advance(9000);
    expectError(await poll(h, deviceCode), 'authorization_pending');
    // The raised interval persists: 10 s holds, again and again.
    h.clock.advance(10_000);
    expectError(await poll(h, deviceCode), 'authorization_pending');
    h.clock.advance(10_000);
    expectError(await poll(h, deviceCode), 'authorization_pending');
    // 5 s (the original interval) is now too soon.
    h.clock.advance(5000);
    expect((await poll(h, deviceCode)).body).toEqual({ error: 'slow_down', interval: 15 });
    h.clock.advance(10_000);
    expectError(await poll(h, deviceCode), 'authorization_pending');
  });

  it('a client that waits the new interval from the refusal is on time, and a burst cannot lock it out', async () => {
    const { deviceCode } = await started();
    expectError(await poll(h, deviceCode), 'authorization_pending');
    h.clock.advance(2000);
    expect((await poll(h, deviceCode)).body).toEqual({ error: 'slow_down', interval: 10 });
    h.clock.advance(10_000);
    expectError(await poll(h, deviceCode), 'authorization_pending');
    // A burst of retries raises the interval to the cap and no further.
    let last: unknown;
    for (let i = 0; i < 20; i++) last = (await poll(h, deviceCode)).body;
    expect(last).toEqual({ error: 'slow_down', interval: 60 });
    h.clock.advance(60_000);
    expectError(await poll(h, deviceCode), 'authorization_pending');
  });

  it('polls on time at the interval stay pending for the whole lifetime', async () => {
    const { deviceCode } = await started();
    for (let t = 0; t < 10; t++) {
      expectError(await poll(h, deviceCode), 'authorization_pending');
      h.clock.advance(5000);
    }
  });
});

describe('POST /device-token: decisions', () => {
  it('issues once after approval, then answers invalid_request', async () => {
    const { deviceCode, userCode, app } = await started();
    expectError(await poll(h, deviceCode), 'authorization_pending');
    await approve(h, userCode);
    h.clock.advance(5000);
    const ok = await poll(h, deviceCode);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('cache-control')).toBe('no-store');
    expect(Object.keys(ok.body).sort()).toEqual([
      'accessToken',
      'applicationAnchor',
      'claims',
      'refreshToken',
    ]);
    expect(ok.body.applicationAnchor).toBe(app.anchor);
    const row = await h.infra.db.deviceAuthorization.findFirstOrThrow({
      where: { userCode, applicationId: app.applicationId },
    });
    expect(row.state).toBe('CONSUMED');
    expect(row.sessionId).toBeTruthy();
    for (let i = 0; i < 3; i++) {
      h.clock.advance(5000);
      expectError(await poll(h, deviceCode), 'invalid_request');
    }
    // Even a poll that is too fast: a consumed code is simply unknown.
    expectError(await poll(h, deviceCode), 'invalid_request');
  });

  it('answers access_denied after a denial, which is final', async () => {
    const { deviceCode, userCode } = await started();
    const found = await findPendingAuthorization(h.deps, userCode.toLowerCase().replace('-', ''));
    if (found.kind !== 'found') throw new Error('not found');
    expect(await denyDeviceAuthorization(h.deps, found.authorization.id)).toBe('denied');
    expectError(await poll(h, deviceCode), 'access_denied');
    h.clock.advance(5000);
    expectError(await poll(h, deviceCode), 'access_denied');
    // No longer findable, approvable or deniable.
    expect((await findPendingAuthorization(h.deps, userCode)).kind).toBe('not_found');
    expect(await denyDeviceAuthorization(h.deps, found.authorization.id)).toBe('gone');
  });

  it('answers expired_token past expiresIn, approved or not', async () => {
    const short = await startDevice({ codeTtlSeconds: 30 });
    try {
      const pending = await started(short);
      const approved = await started(short);
      expectError(await poll(short, pending.deviceCode), 'authorization_pending');
      await approve(short, approved.userCode);
      short.clock.advance(30_000);
      expectError(await poll(short, pending.deviceCode), 'expired_token');
      expectError(await poll(short, approved.deviceCode), 'expired_token');
      // Also when Redis lost the polling state and PostgreSQL answers.
      await short.infra.redis.del(
        `${short.deps.config.redisPrefix}:poll:${deviceCodeHash(approved.deviceCode)}`,
      );
      expectError(await poll(short, approved.deviceCode), 'expired_token');
      // Too late to approve as well.
      expect((await findPendingAuthorization(short.deps, pending.userCode)).kind).toBe('not_found');
    } finally {
      await short.close();
    }
  });

  it('answers from PostgreSQL when Redis lost the polling state, and seeds it again', async () => {
    const { deviceCode, userCode } = await started();
    const key = `${h.deps.config.redisPrefix}:poll:${deviceCodeHash(deviceCode)}`;
    await h.infra.redis.del(key);
    expectError(await poll(h, deviceCode), 'authorization_pending');
    expect(await h.infra.redis.hget(key, 'i')).toBe('5');
    // The reseeded state counted that poll.
    h.clock.advance(1000);
    expect((await poll(h, deviceCode)).body).toEqual({ error: 'slow_down', interval: 10 });
    // A decision made while Redis has no state is still seen.
    await h.infra.redis.del(key);
    await approve(h, userCode);
    h.clock.advance(10_000);
    expect((await poll(h, deviceCode)).status).toBe(200);
  });
});

describe('POST /device-token: checks made again at redemption', () => {
  it('access_denied when the account was disabled after approving', async () => {
    const { deviceCode, userCode } = await started();
    const account = await provisionAccount(h.infra);
    await approve(h, userCode, account.id);
    await setAccountStatus(h.infra.provisioning, account.id, 'DISABLED');
    expectError(await poll(h, deviceCode), 'access_denied');
    h.clock.advance(5000);
    expectError(await poll(h, deviceCode), 'access_denied');
  });

  it('access_denied when the application was suspended after approving', async () => {
    const { deviceCode, userCode, app } = await started();
    await approve(h, userCode);
    await setAppStatus(h.infra.provisioning, app.anchor, 'SUSPENDED');
    expectError(await poll(h, deviceCode), 'access_denied');
  });

  it('an application without the PASSKEY_USERNAMELESS rule starts an authorization (the spec), but approval ends in access_denied', async () => {
    // The spec's condition for pending is an active application with a DEVICE_CODE return rule; the passkey rule is
    // how the person signs in to approve (CONTRACTS), so redemption requires it: a policy denial, final.
    const app = await provisionDeviceApp(h.infra, { methods: ['ACCESS_KEY_DIRECT'] });
    const res = await authorize(h, app.anchor);
    expect(res.status).toBe(200);
    const { deviceCode, userCode } = res.body as { deviceCode: string; userCode: string };
    expectError(await poll(h, deviceCode), 'authorization_pending');
    await approve(h, userCode);
    h.clock.advance(5000);
    expectError(await poll(h, deviceCode), 'access_denied');
    h.clock.advance(5000);
    expectError(await poll(h, deviceCode), 'access_denied');
    expect(
      (await h.infra.db.deviceAuthorization.findFirstOrThrow({ where: { applicationId: app.applicationId } }))
        .state,
    ).toBe('DENIED');
  });

  it('access_denied when the account lacks the current basic-terms receipt at redemption', async () => {
    const { deviceCode, userCode } = await started();
    const account = await provisionAccount(h.infra, { acceptTerms: false });
    await approve(h, userCode, account.id);
    expectError(await poll(h, deviceCode), 'access_denied');
  });

  it('server_error 500 when issuance itself fails (no signing key): stop polling, leaving the approval in place', async () => {
    const { deviceCode, userCode, app } = await started();
    await approve(h, userCode);
    await h.infra.db.$executeRaw`DELETE FROM signing_keys WHERE application_id = ${app.applicationId}::uuid`;
    const res = await poll(h, deviceCode);
    expect(res.body).toEqual({ error: 'server_error' });
    // Not an outage to wait out (that is 503 with Retry-After): the client must start a new authorization.
    expect(res.status).toBe(500);
    expect(res.headers.get('retry-after')).toBeNull();
    const row = await h.infra.db.deviceAuthorization.findFirstOrThrow({
      where: { userCode, applicationId: app.applicationId },
    });
    expect(row.state).toBe('APPROVED');
  });
});
