// Device host test support: the real app on a free port over the real database and Redis, a clock tests move
// instead of sleeping, fixtures (an application with the device return rule and passkey rule, an account), and
// the approval the page will make, through the domain functions the page calls.
import { createPrisma, type Db } from '@svc/db';
import { createLogger, type Logger, type Metrics } from '@svc/platform';
import {
  hostPartsOf,
  openInfra,
  postJson,
  provisionAccount,
  provisionApp,
  type RunningTestHost,
  type SettableClock,
  settableClock,
  startTestHost,
  type TestInfra,
  testEnv,
  uniqueName,
} from '@svc/testkit';
import { createDeviceApp } from '../src/app';
import { type DeviceConfig, deviceConfigFromEnv } from '../src/config';
import { type DeviceDeps, deviceDepsOf } from '../src/deps';
import { approveDeviceAuthorization, findPendingAuthorization } from '../src/domain/approval';

/** Configuration a test changes; the rest is the defaults. */
export type DeviceOverrides = Partial<Omit<DeviceConfig, 'rateLimit'>> & {
  rateLimit?: Partial<DeviceConfig['rateLimit']>;
};

export interface DeviceHarness {
  infra: TestInfra;
  deps: DeviceDeps;
  /** The host's one clock (the issuance core's, the pages' and libs/signin's): tests move it. */
  clock: SettableClock;
  url: string;
  host: RunningTestHost;
  close(): Promise<void>;
}

/** Where the host's infra goes and what it reports to: a database the caller owns, a Redis (a fault proxy's). */
export interface DeviceInfra {
  over?: Db;
  /** PostgreSQL at this URL (a fault proxy's), opened and closed with the host. */
  databaseUrl?: string;
  redisUrl?: string;
  logger?: Logger;
  metrics?: Metrics;
}

/**
 * The device host over its own infra (own Redis prefix so counters never mix), with a test clock. `shared` makes a
 * second replica over the same Redis prefix and the same clock.
 */
export async function startDevice(
  config: DeviceOverrides = {},
  shared?: { clock: SettableClock; redisPrefix: string },
  own: DeviceInfra = {},
): Promise<DeviceHarness> {
  const clock = shared?.clock ?? settableClock();
  const owned = own.databaseUrl ? createPrisma(own.databaseUrl) : undefined;
  const infra = openInfra({ over: own.over ?? owned, redisUrl: own.redisUrl, clock });
  const base = deviceConfigFromEnv(testEnv());
  const logger = own.logger ?? createLogger('device-test', { level: 'silent' });
  const deps = deviceDepsOf(
    { ...hostPartsOf(infra, logger), metrics: own.metrics },
    {
      ...base,
      redisPrefix: shared?.redisPrefix ?? uniqueName('dv'),
      ...config,
      rateLimit: {
        ...base.rateLimit,
        authorizePerAddress: 1000,
        unknownPerAddress: 1000,
        ...config.rateLimit,
      },
    },
  );
  const host = await startTestHost(createDeviceApp(deps));
  return {
    infra,
    deps,
    clock,
    url: host.url,
    host,
    async close() {
      await host.close();
      await infra.close();
      await owned?.$disconnect();
    },
  };
}

/** An application that may start device authorizations (DEVICE_CODE return rule, passkey sign-in rule). */
export function provisionDeviceApp(infra: TestInfra, extra: Parameters<typeof provisionApp>[1] = {}) {
  return provisionApp(infra, { methods: ['PASSKEY_USERNAMELESS'], returnMethods: ['DEVICE_CODE'], ...extra });
}

export function authorize(
  h: { url: string },
  applicationAnchor: string,
  headers: Record<string, string> = {},
) {
  return postJson(`${h.url}/device-authorize`, { applicationAnchor }, headers);
}

export function poll(h: { url: string }, deviceCode: string) {
  return postJson(`${h.url}/device-token`, { deviceCode });
}

/**
 * A poll as a load step's outcome: its expected answer, authorization_pending (RFC 8628's 400), counts as the load's
 * 200, and its 503 `{"error":"server_error"}` as the spec's TemporarilyUnavailable; any other answer (a slow_down
 * above all) stays as it is and fails the scenario.
 */
export async function pollOutcome(h: { url: string }, deviceCode: string) {
  const res = await poll(h, deviceCode);
  const error = res.body?.error as string | undefined;
  return {
    status: error === 'authorization_pending' ? 200 : res.status,
    reason: res.status === 503 && error === 'server_error' ? 'TemporarilyUnavailable' : error,
    retryAfter: res.headers.get('retry-after'),
  };
}

/** Approves as the page does after sign-in, by user code, for `accountId` (a fresh account when omitted). */
export async function approve(h: DeviceHarness, userCode: string, accountId?: string): Promise<string> {
  const account = accountId ?? (await provisionAccount(h.infra)).id;
  const found = await findPendingAuthorization(h.deps, userCode);
  if (found.kind !== 'found') throw new Error(`no pending authorization for ${userCode}: ${found.kind}`);
  const row = await h.infra.db.account.findUniqueOrThrow({ where: { id: account } });
  const outcome = await approveDeviceAuthorization(h.deps, found.authorization.id, {
    accountId: account,
    authorityVersion: row.authorityVersion,
    authTime: new Date(h.clock()),
  });
  if (outcome !== 'approved') throw new Error(`approval ${outcome}`);
  return account;
}

/** A fresh browser on the host's /device page: the page's answer, its flow cookie and the page's CSRF token. */
export async function openDevicePage(h: { url: string }) {
  const page = await fetch(`${h.url}/device`, { headers: { 'accept-language': 'en-US' } });
  const cookie = page.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!)
    .filter((c) => /flow=/.test(c))
    .join('; ');
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] as string;
  return { page, cookie, csrf };
}

export { provisionAccount, uniqueName };
