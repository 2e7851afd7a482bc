// credential_attempts_total{kind="device_user_code"} on the approval page, read from the host's /metrics: every
// typed user code is counted once where it is decided: accepted (it selected a pending authorization), rejected
// (unknown or malformed) or limited (the per-address guess limit refused it before any lookup).
import { createMetrics, type Metrics } from '@svc/platform';
import { scrapeCounter, testEnv } from '@svc/testkit';
import { deviceConfigFromEnv } from '../src/config';
import {
  authorize,
  type DeviceHarness,
  openDevicePage,
  provisionDeviceApp,
  startDevice,
  uniqueName,
} from './support';

jest.setTimeout(60_000);

const PER_ADDRESS = 4;
let h: DeviceHarness;
let metrics: Metrics;

beforeAll(async () => {
  const base = deviceConfigFromEnv(testEnv()).pages;
  const redisPrefix = uniqueName('dvc');
  h = await startDevice({
    redisPrefix,
    pages: {
      ...base,
      rateLimitNamespace: `${redisPrefix}:pages`,
      codeGuesses: { ...base.codeGuesses, perAddress: PER_ADDRESS },
    },
  });
  // A registry of this file's own, so the counts start at zero.
  metrics = createMetrics(uniqueName('device-credentials'));
  h.deps.metrics = metrics;
});
afterAll(async () => {
  await h?.close();
});

const attempts = (outcome: string) =>
  scrapeCounter(metrics, 'credential_attempts_total', { kind: 'device_user_code', outcome });

async function enter(code: string): Promise<number> {
  const { cookie, csrf } = await openDevicePage(h);
  const res = await fetch(`${h.url}/device`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    body: new URLSearchParams({ code, _csrf: csrf }).toString(),
  });
  await res.arrayBuffer();
  return res.status;
}

test('a wrong, a malformed and a right user code, then one past the limit: each counted once by outcome', async () => {
  const app = await provisionDeviceApp(h.infra);
  const { userCode } = (await authorize(h, app.anchor)).body as { userCode: string };
  // 'ZZZZ-ZZZZ' is well formed; no live authorization holds it (a 40-bit code space, this file's one code).
  expect(userCode).not.toBe('ZZZZ-ZZZZ');
  expect(await enter('ZZZZ-ZZZZ')).toBe(303);
  expect(await enter('not a code')).toBe(303);
  expect([await attempts('rejected'), await attempts('accepted')]).toEqual([2, 0]);

  expect(await enter(userCode.toLowerCase())).toBe(303);
  expect([await attempts('rejected'), await attempts('accepted')]).toEqual([2, 1]);

  // The fourth entry from this address used the last point; the fifth is refused before any lookup.
  expect(await enter('ZZZZ-ZZZZ')).toBe(303);
  expect(await enter(userCode)).toBe(429);
  expect({
    accepted: await attempts('accepted'),
    rejected: await attempts('rejected'),
    limited: await attempts('limited'),
  }).toEqual({ accepted: 1, rejected: 3, limited: 1 });
});

test('the counter carries only the kind and the outcome: never a code, an address or an account', async () => {
  const text = await metrics.registry.getSingleMetricAsString('credential_attempts_total');
  const labels = [...text.matchAll(/\{([^}]*)\}/g)].flatMap((m) =>
    [...m[1]!.matchAll(/([a-z_]+)="/g)].map((l) => l[1]),
  );
  expect(new Set(labels)).toEqual(new Set(['service', 'kind', 'outcome']));
});
