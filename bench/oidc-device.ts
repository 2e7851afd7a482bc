// The OIDC host's device grant for `pnpm bench` (BENCH_ONLY=oidc-device-token): polls at /token with grant
// urn:ietf:params:oauth:grant-type:device_code of pending authorizations, round robin over BENCH_DEVICE_CODES live
// codes, from a public client (a TV keeps no secret). The same hot path as the device host's /device-token (one
// Redis script per poll, no PostgreSQL) behind form parsing and the client lookup; target as for /device-token:
// >= 8,000 req/s, p99 < 20 ms. Every answer is a 400 by RFC 8628 (authorization_pending), so the answers are counted.
import {
  createDeviceGrantStores,
  deviceGrantSettingsOf,
  deviceGrantVars,
  startDeviceAuthorization,
} from '@svc/device-grant';
import { readConfig } from '@svc/platform';
import { createOidcClient } from '@svc/provisioning';
import { provisionApp, type TestInfra } from '@svc/testkit';
import type { Repeated } from './device';
import { type BenchHost, startHostProcess } from './hosts';

const CODES = Number(process.env.BENCH_DEVICE_CODES ?? 50_000);
const PORT = 24110;
const GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

export async function benchOidcDeviceToken(
  infra: TestInfra,
  hosts: BenchHost[],
  repeated: Repeated,
  processes: string,
): Promise<Record<string, unknown>> {
  const url = `http://127.0.0.1:${PORT}`;
  const oidc = await startHostProcess('oidc', PORT, { WEB_CONCURRENCY: processes, OIDC_URL: url });
  hosts.push(oidc);
  const app = await provisionApp(infra, {
    methods: ['OIDC', 'PASSKEY_USERNAMELESS'],
    returnMethods: ['DEVICE_CODE'],
  });
  const { clientId } = await createOidcClient(infra.provisioning, {
    anchor: app.anchor,
    redirectUris: [],
    authMethod: 'none',
    grants: ['device_code'],
  });
  const client = await infra.db.oidcClient.findUniqueOrThrow({ where: { clientId } });
  // The settings the host reads from the same environment, so it finds the polling state seeded here.
  const settings = readConfig(deviceGrantVars(), process.env, deviceGrantSettingsOf);
  const stores = createDeviceGrantStores(infra.db, infra.redis, settings, 5000);
  const started = Date.now();
  const codes: string[] = [];
  const one = async (): Promise<void> => {
    while (codes.length < CODES) {
      const s = await startDeviceAuthorization(stores, settings, {
        now: new Date(),
        applicationId: app.applicationId,
        origin: { address: '127.0.0.1', userAgent: 'bench' },
        prefix: 'odc_',
        oidc: { clientId: client.id, scope: 'openid offline_access' },
      });
      codes.push(s.deviceCode);
    }
  };
  await Promise.all(Array.from({ length: 128 }, one));
  console.log(
    `  (${codes.length} pending OIDC device authorizations in ${((Date.now() - started) / 1000).toFixed(1)} s)`,
  );
  const bodies = codes.map(
    (c) => `grant_type=${encodeURIComponent(GRANT)}&device_code=${c}&client_id=${clientId}`,
  );
  const answers: Record<string, number> = {};
  let k = 0;
  const pending = await repeated('oidc /token device_code (pending)', () => ({
    url: `${url}/token`,
    requests: [
      {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        setupRequest: (req) => ({ ...req, body: bodies[k++ % bodies.length] }),
        onResponse: (status, body) => {
          const error = status === 400 ? (/"error":"([a-z_]+)"/.exec(body)?.[1] ?? 'other') : String(status);
          answers[error] = (answers[error] ?? 0) + 1;
        },
      },
    ],
  }));
  console.log(
    `  oidc device poll answers (all runs): ${JSON.stringify(answers)}; target >= 8000 req/s, p99 < 20 ms`,
  );
  return { oidcDeviceTokenPending: pending, oidcDeviceTokenAnswers: answers };
}
