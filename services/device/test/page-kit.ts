// The approval page's test harness: the device host on a free port of `localhost` whose DEVICE_URL names that port
// (the WebAuthn origin), connect beside it on the same relying party id (so a passkey made on connect signs in
// here), one capturing mailbox for both, Chromium with a virtual authenticator, screenshots under
// test-artifacts/device/.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createAgreementsStore } from '@svc/issuance/stores';
import { createLogger } from '@svc/platform';
import { publishTerms } from '@svc/provisioning';
import { createMailer } from '@svc/signin';
import {
  type ConnectProcess,
  contractChecked,
  hostPartsOf,
  launchChromium,
  type Mailbox,
  openInfra,
  shootBothLocales,
  startConnectProcess,
  startMailbox,
  type TestInfra,
  uniqueName,
} from '@svc/testkit';
import type { Browser, Page } from 'playwright-core';
import { createDeviceApp } from '../src/app';
import { deviceConfigFromEnv } from '../src/config';
import { type DeviceDeps, deviceDepsOf } from '../src/deps';
import type { DevicePagesConfig } from '../src/pages/config';

export const ARTIFACTS = path.resolve(__dirname, '../../../test-artifacts/device');

export interface PageHarness {
  infra: TestInfra;
  mailbox: Mailbox;
  /** The device host, http://localhost:PORT. */
  url: string;
  deps: DeviceDeps;
  connect: ConnectProcess;
  /** The device grant's Redis prefix (DEVICE_REDIS_PREFIX): an OIDC host beside it must share it. */
  redisPrefix: string;
  /** A second replica's own address (same DEVICE_URL, Redis prefix and counters), when asked for. */
  replicaAddress?: string;
  close(): Promise<void>;
}

/**
 * Both hosts over one infra; `guesses` sets the user-code guess limits, `newFlows` the flows started per address
 * per minute (own counters per harness).
 */
export async function startPages(
  guesses: Partial<DevicePagesConfig['codeGuesses']> = {},
  newFlows?: number,
  /** More of the host's variables (e.g. RL_CODE_VERIFY_PER_IP so only the per-code counter limits guesses). */
  env: Record<string, string> = {},
  /** Also a second replica of the host (its own deps and listener, the same configuration). */
  withReplica = false,
): Promise<PageHarness> {
  const infra = openInfra();
  const mailbox = await startMailbox();
  const connect = await startConnectProcess({ smtpPort: mailbox.port });
  const server = http.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `http://localhost:${(server.address() as AddressInfo).port}`;
  const logger = createLogger('device-pages-test', { level: 'silent' });
  const base = deviceConfigFromEnv({
    DEVICE_URL: url,
    CONNECT_URL: connect.url,
    WEBAUTHN_RP_ID: 'localhost',
    ...env,
  });
  const redisPrefix = uniqueName('dvp');
  const config = {
    ...base,
    redisPrefix,
    rateLimit: { ...base.rateLimit, authorizePerAddress: 1000 },
    pages: {
      ...base.pages,
      rateLimitNamespace: `${redisPrefix}:pages`,
      codeGuesses: { ...base.pages.codeGuesses, ...guesses },
      newFlowRate: { ...base.pages.newFlowRate, ...(newFlows ? { points: newFlows } : {}) },
    },
  };
  const replicaOf = async (listener: http.Server) => {
    const deps = deviceDepsOf(
      hostPartsOf(infra, logger),
      config,
      createMailer(`smtp://127.0.0.1:${mailbox.port}`, config.pages.mailFrom, logger),
    );
    const contract = contractChecked(createDeviceApp(deps));
    listener.on('request', contract.listener);
    await contract.load(`http://127.0.0.1:${(listener.address() as AddressInfo).port}`);
    return deps;
  };
  const deps = await replicaOf(server);
  let replica: { server: http.Server; deps: DeviceDeps } | undefined;
  if (withReplica) {
    const second = http.createServer();
    await new Promise<void>((r) => second.listen(0, '127.0.0.1', () => r()));
    replica = { server: second, deps: await replicaOf(second) };
  }
  return {
    infra,
    mailbox,
    url,
    deps,
    connect,
    redisPrefix,
    replicaAddress: replica && `http://localhost:${(replica.server.address() as AddressInfo).port}`,
    async close() {
      if (replica) {
        replica.deps.mailer.close();
        replica.server.closeAllConnections();
        await new Promise((r) => replica.server.close(() => r(undefined)));
      }
      deps.mailer.close();
      server.closeAllConnections();
      await new Promise((r) => server.close(() => r(undefined)));
      await connect.close();
      await mailbox.close();
      await infra.close();
    },
  };
}

/** Basic terms are fleet-wide: published once when none are, so the terms step shows for new accounts. */
export async function ensureTerms(h: PageHarness): Promise<void> {
  if (await createAgreementsStore(h.infra.db).currentTerms()) return;
  const doc = (title: string) => ({
    schemaVersion: 1,
    title,
    sections: [{ heading: '1', paragraphs: ['Be kind.'] }],
  });
  await publishTerms(
    h.infra.provisioning,
    { locales: { 'en-US': { document: doc('Basic Terms') }, 'zh-CN': { document: doc('基本条款') } } },
    h.connect.url,
  );
}

export const shoot = (page: Page, name: string) => shootBothLocales(page, ARTIFACTS, name);

/**
 * A test file's pages harness and Chromium, opened before its tests and closed after them; read through getters,
 * so a file writes `ui.h` and `ui.browser` in its tests. `terms`: the baseline terms exist first; `artifacts`:
 * where Chromium's traces go.
 */
export function useChromiumPages(opts: { terms?: boolean; artifacts?: string } = {}): {
  readonly h: PageHarness;
  readonly browser: Browser;
} {
  let h: PageHarness | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    h = await startPages();
    if (opts.terms) await ensureTerms(h);
    browser = await launchChromium(opts.artifacts);
  });
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });
  const opened = <T>(v: T | undefined): T => {
    if (v === undefined) throw new Error('useChromiumPages: read before beforeAll opened it');
    return v;
  };
  return {
    get h() {
      return opened(h);
    },
    get browser() {
      return opened(browser);
    },
  };
}
