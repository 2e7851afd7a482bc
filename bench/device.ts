// The device host's scenarios for `pnpm bench`: /device-token polls of pending authorizations, round robin over
// BENCH_DEVICE_CODES live codes (default 50,000: a real fleet of waiting devices, each polled about as often as
// its 5 s interval allows at the target rate), and /device-authorize. Every poll answer is a 400 by the spec
// (authorization_pending), so the scenario counts the answers itself: pending is the success here, slow_down means
// the round robin came back to a code sooner than its interval (more than codes / 5 s requests per second).
import { createLogger } from '@svc/platform';
import { hostPartsOf, provisionApp, type TestInfra } from '@svc/testkit';
import type autocannon from 'autocannon';
import { deviceConfigFromEnv, deviceDepsOf } from '../services/device/src';
import { authorizeDevice } from '../services/device/src/domain/authorize';
import { type BenchHost, startHostProcess } from './hosts';

export type Repeated = (
  name: string,
  make: () => autocannon.Options | Promise<autocannon.Options>,
  opts?: { connections?: number },
) => Promise<unknown>;

const CODES = Number(process.env.BENCH_DEVICE_CODES ?? 50_000);

/**
 * Starts `n` authorizations through the device domain itself (the statements and Redis state the host writes, with
 * the host's default configuration, so the host sees them), `parallel` at a time; returns their device codes.
 * Going through HTTP would make the load generator, not the host, the slow part of seeding 50,000.
 */
export async function seedCodes(
  infra: TestInfra,
  anchor: string,
  n: number,
  parallel = 128,
): Promise<string[]> {
  const deps = deviceDepsOf(
    hostPartsOf(infra, createLogger('bench-device', { level: 'warn' })),
    deviceConfigFromEnv(process.env),
  );
  const codes: string[] = [];
  let started = 0;
  const one = async (): Promise<void> => {
    while (started < n) {
      started++;
      const answer = await authorizeDevice(deps, anchor, { address: '127.0.0.1', userAgent: 'bench' });
      codes.push(answer.deviceCode);
    }
  };
  await Promise.all(Array.from({ length: parallel }, one));
  return codes;
}

export async function benchDevice(
  infra: TestInfra,
  hosts: BenchHost[],
  repeated: Repeated,
  wanted: (scenario: string) => boolean,
  processes: string,
): Promise<Record<string, unknown>> {
  const results: Record<string, unknown> = {};
  if (!wanted('device-token') && !wanted('device-authorize')) return results;
  const device = await startHostProcess('device', 24104, {
    WEB_CONCURRENCY: processes,
    DEVICE_RATE_AUTHORIZE_PER_ADDRESS: '1000000000',
  });
  hosts.push(device);
  const app = await provisionApp(infra, {
    methods: ['PASSKEY_USERNAMELESS'],
    returnMethods: ['DEVICE_CODE'],
  });

  if (wanted('device-token')) {
    const started = Date.now();
    const codes = await seedCodes(infra, app.anchor, CODES);
    console.log(
      `  (${codes.length} pending device authorizations started in ${((Date.now() - started) / 1000).toFixed(1)} s)`,
    );
    const bodies = codes.map((deviceCode) => JSON.stringify({ deviceCode }));
    const answers: Record<string, number> = {};
    let k = 0;
    results.deviceTokenPending = await repeated('device /device-token', () => ({
      url: `${device.url}/device-token`,
      requests: [
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          setupRequest: (req) => ({ ...req, body: bodies[k++ % bodies.length] }),
          onResponse: (status, body) => {
            const error =
              status === 400 ? (/"error":"([a-z_]+)"/.exec(body)?.[1] ?? 'other') : String(status);
            answers[error] = (answers[error] ?? 0) + 1;
          },
        },
      ],
    }));
    console.log(
      `  poll answers (all runs): ${JSON.stringify(answers)}; each code polled every ${(codes.length / ((results.deviceTokenPending as { requestsPerSec: number }).requestsPerSec || 1)).toFixed(1)} s`,
    );
    results.deviceTokenAnswers = answers;
  }

  if (wanted('device-authorize')) {
    results.deviceAuthorize = await repeated('device /device-authorize', () => ({
      url: `${device.url}/device-authorize`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ applicationAnchor: app.anchor }),
    }));
  }
  return results;
}
