// A host's close() stops all of its work, as Kubernetes' graceful shutdown relies on: afterwards nothing of it opens
// a PostgreSQL or Redis connection (counted at fault proxies before the real ones) and its dependency watch, left
// with a PostgreSQL outage to recheck, probes nothing and logs no false "is down" about connections closed on purpose.
import { createMetrics, type DependencyWatch, systemClock } from '@svc/platform';
import {
  captureLogger,
  type DependencyProxies,
  proxyDependencies,
  testEnv,
  testUrls,
  trackRunning,
  waitUntil,
} from '@svc/testkit';
import { hostAppOptions } from './app-options';
import { type HostCore, openHostCore } from './host-core';
import { issuingConfigFromEnv } from './issuing-config';

let proxies: DependencyProxies;
let core: HostCore | undefined;
beforeAll(async () => {
  proxies = await proxyDependencies();
});
afterAll(async () => {
  await core?.close();
  await proxies.close();
});

/** A session host's core whose PostgreSQL and Redis are reached through the fault proxies. */
function openProxiedHost() {
  return openHostCore(
    issuingConfigFromEnv(
      'session',
      testEnv({
        DATABASE_URL: proxies.pg.urlFor(testUrls.database),
        REDIS_URL: proxies.redis.urlFor(testUrls.redis),
      }),
    ),
    systemClock,
  );
}

/** Connections each proxy has accepted so far: every connection the host opened, reconnections included. */
const accepted = () => ({ postgres: proxies.pg.accepted, redis: proxies.redis.accepted });

test('after close, the host opens no PostgreSQL or Redis connection and its watch neither probes nor logs', async () => {
  const log = captureLogger('host-close');
  const made = trackRunning();
  core = openProxiedHost();
  const opened = core;
  const watch = hostAppOptions('host-close', {
    ...opened,
    logger: log.logger,
    metrics: createMetrics('host-close'),
  }).dependencies as DependencyWatch;
  // The first connections may take longer than one probe's bound on a loaded machine: wait for the watch to see
  // both up rather than asking once.
  await waitUntil(() => watch.check());
  // PostgreSQL goes away and comes back unseen: the watch holds it down and has its recheck timer set, as a host
  // stopped during or right after an outage does.
  await proxies.pg.cut();
  expect(await watch.check()).toBe(false);
  await proxies.pg.pass();
  expect(watch.states()).toEqual({ postgres: 'down', redis: 'up' });

  await opened.close();
  core = undefined;
  const closedAt = { connections: accepted(), lines: log.lines.length };
  // Everything that starts a probe: the recheck timer and /readyz call check(), a failed request suspect(), and the
  // host's Redis connection reports its errors to the watch.
  expect(await watch.check()).toBe(false);
  watch.suspect();
  opened.redis.emit('error', new Error('a late connection error'));
  expect(accepted()).toEqual(closedAt.connections);
  expect(watch.states()).toEqual({ postgres: 'down', redis: 'up' });
  expect(log.lines.slice(closedAt.lines).filter((l) => l.dependency)).toEqual([]);

  // Nor does a statement or command reach a closed connection: the client refuses it instead of connecting again.
  await expect(opened.db.$queryRaw`SELECT 1`).rejects.toThrow(/closed/);
  await expect(opened.redis.ping()).rejects.toThrow(/closed/);
  expect(accepted()).toEqual(closedAt.connections);
  // And nothing of it is left running: no timer set and no socket open, which would hold the process up after the
  // host said it stopped (ioredis's disconnect timer over a socket closed already held it 2 s).
  try {
    expect(await made.leftRunning()).toEqual([]);
  } finally {
    made.stop();
  }
});

test('a host closed while PostgreSQL and Redis are down leaves no timer set and no socket open', async () => {
  const made = trackRunning();
  try {
    core = openProxiedHost();
    const opened = core;
    const watch = hostAppOptions('host-close', {
      ...opened,
      logger: captureLogger('host-close-down').logger,
      metrics: createMetrics('host-close-down'),
    }).dependencies as DependencyWatch;
    await waitUntil(() => watch.check());
    // Kubernetes stops the pod in the middle of an outage: its connections are waiting to reconnect.
    await Promise.all([proxies.pg.cut(), proxies.redis.cut()]);
    await waitUntil(async () => opened.redis.status === 'reconnecting');
    await opened.close();
    core = undefined;
    // Ended, not left "reconnecting" with its offline queue unflushed until ioredis's timers ran out.
    expect(opened.redis.status).toBe('end');
    expect(await made.leftRunning()).toEqual([]);
  } finally {
    made.stop();
    await Promise.all([proxies.pg.pass(), proxies.redis.pass()]);
  }
});
