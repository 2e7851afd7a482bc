// The real hosts in this process for the client package's tests: each on a free port of 127.0.0.1, named
// `http://localhost:<port>` (so Chromium accepts passkeys on every page), all knowing each other's URLs, over the
// run's PostgreSQL and Redis, with a capturing mailbox for sign-up codes.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ensureActiveKey, OIDC_SCOPE } from '@svc/keyring';
import { type Env, systemClock } from '@svc/platform';
import {
  contractChecked,
  type InfraOptions,
  type Mailbox,
  openInfra,
  startMailbox,
  type TestInfra,
  testEnv,
  uniqueName,
} from '@svc/testkit';
import { createConnectApp } from '../../../services/connect/src/app';
import { connectConfigFromEnv } from '../../../services/connect/src/config';
import { openConnectDeps } from '../../../services/connect/src/deps';
import { createDeviceApp } from '../../../services/device/src/app';
import { deviceConfigFromEnv } from '../../../services/device/src/config';
import { openDeviceDeps } from '../../../services/device/src/deps';
import { createNativeApp } from '../../../services/native/src/app';
import { nativeConfigFromEnv } from '../../../services/native/src/config';
import { openNativeDeps } from '../../../services/native/src/deps';
import { createOidcApp } from '../../../services/oidc/src/app';
import { oidcConfigFromEnv } from '../../../services/oidc/src/config';
import { openOidcDeps } from '../../../services/oidc/src/deps';
import { createSessionApp } from '../../../services/session/src/app';
import { sessionConfigFromEnv } from '../../../services/session/src/config';
import { openSessionDeps } from '../../../services/session/src/deps';

export type HostName = 'connect' | 'session' | 'native' | 'device' | 'oidc';

export interface Fleet {
  urls: Record<HostName, string>;
  /** ISSUER_URL: the application tokens' `iss`. */
  issuer: string;
  mailbox: Mailbox;
  infra: TestInfra;
  /** The environment every host was configured from (URLs included). */
  env: Env;
  /** Each started host's deps, for tests that act as its pages would (approve a device code, say). */
  deps: Partial<Record<HostName, unknown>>;
  close(): Promise<void>;
}

interface Opened {
  app: http.RequestListener;
  deps: unknown;
  close(): Promise<void>;
}

/** A host's three steps (configuration from env, deps on the system clock, the app) as one opener. */
function host<C, D extends { close(): Promise<void> }>(
  configOf: (env: Env) => C,
  depsOf: (config: C, clock: typeof systemClock) => D,
  appOf: (deps: D) => http.RequestListener,
): (env: Env) => Opened {
  return (env) => {
    const deps = depsOf(configOf(env), systemClock);
    return { app: appOf(deps), deps, close: () => deps.close() };
  };
}

const OPEN: Record<HostName, (env: Env) => Opened> = {
  session: host(sessionConfigFromEnv, openSessionDeps, createSessionApp),
  connect: host(connectConfigFromEnv, openConnectDeps, createConnectApp),
  native: host(nativeConfigFromEnv, openNativeDeps, createNativeApp),
  device: host(deviceConfigFromEnv, openDeviceDeps, createDeviceApp),
  oidc: host(oidcConfigFromEnv, openOidcDeps, createOidcApp),
};

const ALL: HostName[] = ['session', 'connect', 'native', 'device', 'oidc'];

/**
 * Starts `hosts` (default all five) configured from testEnv plus `env`; the test's fixtures go through `infra`
 * (over a private database, say, with DATABASE_URL naming it in `env`).
 */
export async function startFleet(
  opts: { hosts?: HostName[]; env?: Env; infra?: InfraOptions } = {},
): Promise<Fleet> {
  const hosts = opts.hosts ?? ALL;
  const infra = openInfra(opts.infra);
  const mailbox = await startMailbox();
  const servers = new Map<HostName, http.Server>();
  const urls = {} as Record<HostName, string>;
  for (const host of ALL) {
    const server = http.createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    servers.set(host, server);
    urls[host] = `http://localhost:${(server.address() as AddressInfo).port}`;
  }
  const env = testEnv({
    CONNECT_URL: urls.connect,
    SESSION_URL: urls.session,
    NATIVE_URL: urls.native,
    DEVICE_URL: urls.device,
    OIDC_URL: urls.oidc,
    WEBAUTHN_RP_ID: 'localhost',
    WEBAUTHN_RP_NAME: 'Sign-in service (sdk test)',
    SMTP_URL: `smtp://127.0.0.1:${mailbox.port}`,
    MAIL_FROM: 'Sign-in test <no-reply@localhost>',
    RATE_LIMIT_NAMESPACE: uniqueName('sdk-rl'),
    // Tests change an application's rules between calls; each call reads them afresh.
    APP_CACHE_TTL_MS: '0',
    ...opts.env,
  });
  if (hosts.includes('oidc')) {
    // The OIDC host makes its platform key at start-up in main; the app alone expects one.
    await ensureActiveKey(infra.db, infra.issuance.kek, OIDC_SCOPE, new Date());
  }
  const opened: Opened[] = [];
  const deps: Fleet['deps'] = {};
  for (const host of hosts) {
    const one = OPEN[host](env);
    opened.push(one);
    deps[host] = one.deps;
    const contract = contractChecked(one.app);
    const server = servers.get(host)!;
    server.on('request', contract.listener);
    const port = (server.address() as AddressInfo).port;
    await contract.load(`http://127.0.0.1:${port}`);
  }
  return {
    urls,
    issuer: sessionConfigFromEnv(env).issuer,
    mailbox,
    infra,
    env,
    deps,
    async close() {
      for (const server of servers.values()) {
        server.closeAllConnections();
        await new Promise((r) => server.close(() => r(undefined)));
      }
      for (const one of opened) await one.close();
      await mailbox.close();
      await infra.close();
    },
  };
}
