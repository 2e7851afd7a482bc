// startDeviceAuthorization behind its ports: a user code a live authorization holds draws again (never handed out
// twice), the polling state is seeded for the same device code with the answered interval and expiry, and a run of
// collisions gives up rather than loop.
import { deviceCodeHash } from './codes';
import type { DeviceGrantSettings } from './config';
import type { DeviceGrantStores, NewAuthorization } from './ports';
import { startDeviceAuthorization } from './start';

const settings: DeviceGrantSettings = {
  codeTtlSeconds: 600,
  pollIntervalSeconds: 5,
  pollLeewayMs: 250,
  unknownPollsPerAddress: 60,
  authorizePerAddress: 30,
  rateWindowSeconds: 60,
  redisPrefix: 'unused',
};
const now = new Date('2026-11-26T12:00:00Z');
const input = {
  now,
  applicationId: '00000000-0000-4000-8000-000000000001',
  origin: { address: '203.0.113.9', userAgent: 'tv\u0007-app' },
  prefix: 'dvc_' as const,
};

/** Stores whose insert refuses the first `collisions` rows (a live code taken), recording what it was asked. */
function stores(collisions: number) {
  const inserted: NewAuthorization[] = [];
  const seeded: { hash: string; interval: number; expiresAt: Date }[] = [];
  let refused = 0;
  const s = {
    authorizations: {
      async insert(row: NewAuthorization) {
        inserted.push(row);
        if (refused < collisions) {
          refused++;
          return false;
        }
        return true;
      },
    },
    polling: {
      async seed(hash: string, interval: number, expiresAt: Date) {
        seeded.push({ hash, interval, expiresAt });
      },
    },
  } as unknown as DeviceGrantStores;
  return { s, inserted, seeded };
}

test('a taken user code draws again; the answer names the code that went in, the state is seeded once', async () => {
  const { s, inserted, seeded } = stores(2);
  const started = await startDeviceAuthorization(s, settings, input);
  expect(inserted).toHaveLength(3);
  expect(started.userCode).toBe(inserted[2]!.userCode);
  expect([started.expiresIn, started.interval]).toEqual([600, 5]);
  const expiresAt = new Date(now.getTime() + 600_000);
  expect(seeded).toEqual([{ hash: deviceCodeHash(started.deviceCode), interval: 5, expiresAt }]);
  for (const row of inserted) {
    expect(row.deviceCodeHash).toBe(deviceCodeHash(started.deviceCode));
    expect(row.expiresAt).toEqual(expiresAt);
    // Control characters never reach the page that shows the User-Agent.
    expect(row.deviceUserAgent).toBe('tv-app');
  }
});

test('after eight taken codes in a row it gives up instead of drawing forever', async () => {
  const { s, inserted } = stores(8);
  await expect(startDeviceAuthorization(s, settings, input)).rejects.toThrow(/no free user code/);
  expect(inserted).toHaveLength(8);
});
