// The session, OIDC and device hosts as the engine tests run them: in this process, configured from an environment
// (the engines' REDIS_SENTINELS / REDIS_CLUSTER_NODES / DATABASE_URL, as an operator would set them), each on a
// free port, closed by the returned function.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPrisma, type Db, migrate } from '@svc/db';
import { ensureActiveKey, OIDC_SCOPE } from '@svc/keyring';
import { type Env, systemClock } from '@svc/platform';
import {
  contractChecked,
  type Engine,
  ensureBaselineTerms,
  settableClock,
  startTestHost,
  type TestInfra,
  uniqueName,
  waitFor,
} from '@svc/testkit';
import { createDeviceApp } from '../../services/device/src/app';
import { deviceConfigFromEnv } from '../../services/device/src/config';
import { openDeviceDeps } from '../../services/device/src/deps';
import type { DeviceHarness } from '../../services/device/test/support';
import { createOidcApp } from '../../services/oidc/src/app';
import { oidcConfigFromEnv } from '../../services/oidc/src/config';
import { openOidcDeps } from '../../services/oidc/src/deps';
import type { OidcHarness } from '../../services/oidc/test/token-kit';
import { createSessionApp } from '../../services/session/src/app';
import { sessionConfigFromEnv } from '../../services/session/src/config';
import { openSessionDeps } from '../../services/session/src/deps';

/** Prepares a database the hosts serve from: migrated, the baseline terms in place (a PostgreSQL pair's primary). */
export async function prepareHostsDatabase(url: string): Promise<void> {
  await migrate(url);
  const prepared = createPrisma(url);
  try {
    await ensureBaselineTerms(prepared);
  } finally {
    await prepared.$disconnect();
  }
}

export interface Started<T> {
  host: T;
  close(): Promise<void>;
}

export async function startSession(env: Env): Promise<Started<{ url: string }>> {
  const deps = openSessionDeps(sessionConfigFromEnv(env), systemClock);
  const host = await startTestHost(createSessionApp(deps));
  return {
    host: { url: host.url },
    async close() {
      await host.close();
      await deps.close();
    },
  };
}

/** `count` session replicas on `env`, each closed by a function added to `closers`; their URLs. */
export async function startSessions(
  env: Env,
  count: number,
  closers: (() => Promise<void>)[],
): Promise<string[]> {
  const urls: string[] = [];
  for (let i = 0; i < count; i++) {
    const session = await startSession(env);
    urls.push(session.host.url);
    closers.push(session.close);
  }
  return urls;
}

/** Waits until every host at `urls` says it is ready (/readyz 200). */
export async function waitReady(urls: string[]): Promise<void> {
  for (const url of urls) {
    await waitFor(`${url} ready`, async () => (await fetch(`${url}/readyz`)).status === 200, 30_000);
  }
}

/**
 * Closes what a PostgreSQL-pair file opened: the hosts, the test's infrastructure and client, then the engines
 * (PgBouncer before the pair), each step even when one before failed.
 */
export async function closePairFiles(opened: {
  closers: (() => Promise<void>)[];
  infra?: TestInfra;
  db?: Db;
  engines: Engine[];
  pair?: Engine;
}): Promise<void> {
  for (const close of opened.closers) await close().catch(() => undefined);
  await opened.infra?.close().catch(() => undefined);
  await opened.db?.$disconnect().catch(() => undefined);
  for (const engine of [...opened.engines, ...(opened.pair ? [opened.pair] : [])])
    await engine.stop().catch(() => undefined);
}

/** The OIDC host, naming its own address as the issuer (it listens before its deps are opened). */
export async function startOidc(env: Env, infra: TestInfra): Promise<Started<OidcHarness>> {
  await ensureActiveKey(infra.db, infra.issuance.kek, OIDC_SCOPE, new Date());
  const server = http.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const deps = openOidcDeps(oidcConfigFromEnv({ ...env, OIDC_URL: url }), systemClock);
  const contract = contractChecked(createOidcApp(deps));
  server.on('request', contract.listener);
  await contract.load(url);
  const close = async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(() => r(undefined)));
    await deps.close();
  };
  return { host: { infra, deps, url, close: async () => undefined }, close };
}

/**
 * The device host (as its tests' harness: `approve` takes it) on a clock the test moves by the polling interval
 * instead of waiting, its own Redis prefix, and no rate limit in the way of a load.
 */
export async function startDeviceHost(
  env: Env,
  infra: TestInfra,
  over: { pollIntervalSeconds?: number; codeTtlSeconds?: number } = {},
): Promise<Started<DeviceHarness>> {
  const clock = settableClock();
  const base = deviceConfigFromEnv(env);
  const deps = openDeviceDeps(
    {
      ...base,
      ...over,
      redisPrefix: uniqueName('dv'),
      rateLimit: { ...base.rateLimit, authorizePerAddress: 1e6, unknownPerAddress: 1e6 },
    },
    clock,
  );
  const host = await startTestHost(createDeviceApp(deps));
  const close = async () => {
    await host.close();
    await deps.close();
  };
  return { host: { url: host.url, infra, deps, clock, host, close }, close };
}
