// Test support for the connect host: deps over testkit infra, the app on a free port with CONNECT_URL set to it,
// a local SMTP server capturing mail (testkit's), a connect pair, and the realization the browser flow makes.
import http, { type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApplicationCache, createErrand } from '@svc/issuance';
import { createAgreementsStore } from '@svc/issuance/stores';
import {
  type Clock,
  createLogger,
  createSingleUseClaims,
  type Logger,
  listen,
  type Metrics,
  systemClock,
  UNREPLICATED_CLAIMS,
} from '@svc/platform';
import { createMailer } from '@svc/signin';
import {
  type AppFixtureOptions,
  type Backend,
  contractChecked,
  type Mailbox,
  openInfra,
  provisionBackend,
  startMailbox,
  type TestInfra,
  testEnv,
  uniqueName,
} from '@svc/testkit';
import { createSessionApp } from '../../session/src/app';
import { sessionConfigFromEnv } from '../../session/src/config';
import { openSessionDeps } from '../../session/src/deps';
import { createConnectApp } from '../src/app';
import { type ConnectConfig, connectConfigFromEnv } from '../src/config';
import { type ConnectDeps, connectBindings } from '../src/deps';
import { sha256Hex } from '../src/domain/keys';
import { realizeInquiry } from '../src/domain/realize';
import { createInquiryStore } from '../src/store/inquiries';

export interface ConnectHost {
  url: string;
  deps: ConnectDeps;
  close(): Promise<void>;
}

/** Starts the connect app on a free port of 127.0.0.1; `hostname` (e.g. localhost) names it in CONNECT_URL. */
export async function startConnect(
  infra: TestInfra,
  opts: {
    hostname?: string;
    smtpPort?: number;
    config?: Partial<ConnectConfig>;
    clock?: Clock;
    port?: number;
    /** Express's `trust proxy` (TRUST_PROXY): which X-Forwarded-For hops name the client. */
    trustProxy?: boolean | number | string;
    /** The host's metrics registry (none unless given). */
    metrics?: Metrics;
    /** The host's logger (a silent one unless given): a fault test captures its dependency watch's lines. */
    logger?: Logger;
  } = {},
): Promise<ConnectHost> {
  // Served as a host serves (platform's listen, with its connection guard); the app exists once the URL does.
  let listener: RequestListener = (_req, res) => res.writeHead(503).end();
  const server = await listen((req, res) => listener(req, res), opts.port ?? 0, '127.0.0.1');
  const port = (server.address() as AddressInfo).port;
  const url = `http://${opts.hostname ?? '127.0.0.1'}:${port}`;
  const logger = opts.logger ?? createLogger('connect-test', { level: 'silent' });
  const clock = opts.clock ?? systemClock;
  const config: ConnectConfig = {
    ...connectConfigFromEnv(
      testEnv({
        CONNECT_URL: url,
        WEBAUTHN_RP_NAME: 'Sign-in service (test)',
        MAIL_FROM: 'Sign-in test <no-reply@localhost>',
        SMTP_URL: `smtp://127.0.0.1:${opts.smtpPort ?? 2525}`,
        // Each test host counts on its own, so repeated runs from 127.0.0.1 do not trip each other's limits.
        RATE_LIMIT_NAMESPACE: uniqueName('connect-rl'),
      }),
    ),
    ...opts.config,
  };
  const parts = {
    db: infra.db,
    redis: infra.redis,
    claims: createSingleUseClaims(infra.redis, UNREPLICATED_CLAIMS),
    keyRing: infra.keyRing,
    issuance: { ...infra.issuance, connectUrl: url, clock },
    apps: createApplicationCache(infra.issuance.ports.applications, 0, clock),
    config,
    mailer: createMailer(config.smtp, config.mailFrom, logger),
    logger,
    clock,
    trustProxy: opts.trustProxy,
    metrics: opts.metrics,
  };
  const deps: ConnectDeps = { ...parts, ...connectBindings(parts), close: async () => undefined };
  const contract = contractChecked(createConnectApp(deps));
  listener = contract.listener;
  await contract.load(`http://127.0.0.1:${port}`);
  return {
    url,
    deps,
    close: () =>
      new Promise((r) => {
        deps.mailer.close();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** One connect host (and optional replicas over the same PostgreSQL and Redis) with its mailbox, per test file. */
export interface ConnectSetup {
  infra: TestInfra;
  mailbox: Mailbox;
  /** The host the backends are provisioned against. */
  host: ConnectHost;
  /** A second replica, when asked for. */
  replica: ConnectHost;
}

/**
 * Opens the infrastructure, a capturing mailbox and the connect host (plus `replicas` more) before the file's
 * tests and closes them after; the fields are filled in by beforeAll. Options are startConnect's.
 */
export function useConnectHost(
  opts: {
    hostname?: string;
    config?: Partial<ConnectConfig>;
    replicas?: 0 | 1;
    clock?: Clock;
    metrics?: Metrics;
  } = {},
): ConnectSetup {
  const setup = {} as ConnectSetup;
  beforeAll(async () => {
    setup.infra = openInfra();
    setup.mailbox = await startMailbox();
    const start = () =>
      startConnect(setup.infra, {
        hostname: opts.hostname,
        config: opts.config,
        smtpPort: setup.mailbox.port,
        clock: opts.clock,
        metrics: opts.metrics,
      });
    setup.host = await start();
    if (opts.replicas) setup.replica = await start();
  });
  afterAll(async () => {
    await setup.host?.close();
    await setup.replica?.close();
    await setup.mailbox?.close();
    await setup.infra?.close();
  });
  return setup;
}

/** The session host on a free port of 127.0.0.1 for the file's tests (JWK Set, /refresh). */
export function useSessionHost(): { url: string } {
  const session = { url: '' };
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const deps = openSessionDeps(sessionConfigFromEnv(testEnv()), systemClock);
    const contract = contractChecked(createSessionApp(deps));
    const server = http.createServer(contract.listener);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    session.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await contract.load(session.url);
    close = async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(() => r(undefined)));
      await deps.close();
    };
  });
  afterAll(async () => {
    await close?.();
  });
  return session;
}

export interface ConnectPair {
  infra: TestInfra;
  /** The replica the backend's CONNECT_URL names. */
  host: ConnectHost;
  /** A second replica over the same PostgreSQL and Redis. */
  replica: ConnectHost;
  backend: Backend;
}

/**
 * Two connect replicas over one infrastructure and a backend provisioned against the first, opened before the
 * file's tests and closed after them. The fields are filled in beforeAll.
 */
export function useConnectPair(backend: AppFixtureOptions = {}): ConnectPair {
  const pair = {} as ConnectPair;
  beforeAll(async () => {
    pair.infra = openInfra();
    pair.host = await startConnect(pair.infra);
    pair.replica = await startConnect(pair.infra);
    pair.backend = await provisionBackend(pair.infra, pair.host.url, backend);
  });
  afterAll(async () => {
    await pair.host.close();
    await pair.replica.close();
    await pair.infra.close();
  });
  return pair;
}

/** Gives an account a receipt for the current basic terms, when any are published (terms are fleet-wide). */
export async function acceptCurrentTerms(infra: TestInfra, accountId: string): Promise<void> {
  const terms = await createAgreementsStore(infra.db).currentTerms();
  if (terms) await createAgreementsStore(infra.db).recordReceipt(accountId, terms, 'TEST');
}

/** A CLAIMS errand asking the account for its first name under the application; the path of its page. */
export async function firstNameErrand(
  host: ConnectHost,
  applicationId: string,
  accountId: string,
): Promise<string> {
  const errand = await createErrand(host.deps.issuance, {
    applicationId,
    accountId,
    purpose: 'CLAIMS',
    claims: ['firstName'],
  });
  return new URL(errand.url).pathname;
}

/** Realizes an inquiry for an account the way the browser flow does once every page step has passed. */
export async function realizeFor(infra: TestInfra, exposureKey: string, accountId: string): Promise<string> {
  const inquiries = createInquiryStore(infra.db);
  const inquiry = await inquiries.byExposureHash(sha256Hex(exposureKey));
  const account = await infra.db.account.findUniqueOrThrow({ where: { id: accountId } });
  const key = await realizeInquiry(
    { inquiries, kek: infra.issuance.kek, clock: systemClock },
    inquiry!.id,
    account,
    new Date(),
  );
  if (!key) throw new Error('inquiry could not be realized');
  return key;
}
