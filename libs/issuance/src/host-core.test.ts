// openHostCore and hostAppOptions against the real PostgreSQL and Redis: /readyz follows both dependencies.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPrisma } from '@svc/db';
import { createHostApp, finishHostApp, listen } from '@svc/platform';
import { type HostCore, hostAppOptions, openHostCore } from './host-core';

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
  core = openHostCore('host-core-test');
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
