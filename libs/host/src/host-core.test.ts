// openHostCore and hostAppOptions against the real PostgreSQL and Redis: /readyz follows both dependencies and
// waits for the signing keys to be loaded.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPrisma } from '@svc/db';
import { createKeyRing, ensureActiveKey, OIDC_SCOPE } from '@svc/keyring';
import { createHostApp, finishHostApp, listen, systemClock } from '@svc/platform';
import { testEnv, testKek } from '@svc/testkit';
import { kekFromBytes } from '@svc/token-core';
import { hostAppOptions } from './app-options';
import { type HostCore, openHostCore } from './host-core';
import { issuingConfigFromEnv } from './issuing-config';

let core: HostCore;
let base: string;

async function serve(deps: Parameters<typeof hostAppOptions>[1]): Promise<string> {
  const opts = hostAppOptions('host-core-test', deps);
  const app = createHostApp(opts);
  finishHostApp(app, opts);
  const server = await listen(app, 0, '127.0.0.1');
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const servers: Server[] = [];
beforeAll(async () => {
  core = openHostCore(issuingConfigFromEnv('session', testEnv()), systemClock);
  // At least one ACTIVE signing key exists (the platform OIDC key, made once if missing).
  await ensureActiveKey(core.db, testKek(), OIDC_SCOPE, new Date());
  base = await serve(core);
});
afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
  await core.close();
});

test('/readyz is 503 when PostgreSQL does not answer (Redis does)', async () => {
  // Port 1 refuses connections: the pool cannot reach a database there.
  const unreachable = createPrisma('postgresql://svc@127.0.0.1:1/test');
  try {
    const url = await serve({ ...core, db: unreachable });
    const res = await fetch(`${url}/readyz`);
    expect([res.status, await res.json()]).toEqual([503, { status: 'not_ready' }]);
  } finally {
    await unreachable.$disconnect();
  }
});

test('/readyz is ready while PostgreSQL and Redis answer, and 503 once Redis is gone', async () => {
  const ready = await fetch(`${base}/readyz`);
  expect([ready.status, await ready.json()]).toEqual([200, { status: 'ready' }]);
  core.redis.disconnect();
  const gone = await fetch(`${base}/readyz`);
  expect([gone.status, await gone.json()]).toEqual([503, { status: 'not_ready' }]);
});

test('/readyz is 503 until the signing keys are loaded: a KEK that cannot open them never gets ready', async () => {
  const wrongKek = createKeyRing({ db: core.db, kek: kekFromBytes(Buffer.alloc(32, 9)), clock: systemClock });
  const url = await serve({ ...core, keyRing: wrongKek });
  for (let i = 0; i < 2; i++) {
    const res = await fetch(`${url}/readyz`);
    expect([res.status, await res.json()]).toEqual([503, { status: 'not_ready' }]);
  }
  expect((await fetch(`${url}/healthz`)).status).toBe(200);
  // The same host with a key ring that opens them is ready: the load is tried again at each check until it succeeds.
  const rightKek = createKeyRing({ db: core.db, kek: testKek(), clock: systemClock });
  expect(await rightKek.loadSigningKeys()).toBeGreaterThanOrEqual(1);
  await expect(wrongKek.loadSigningKeys()).rejects.toThrow(/cannot be opened/);
});
