// Test support: real PostgreSQL and Redis connections, unique fixtures per test, and hosts on free ports.
import { randomBytes } from 'node:crypto';
import type { RequestListener, Server } from 'node:http';
import type { HostParts } from '@svc/host';
import { createApplicationCache } from '@svc/issuance';
import { createSingleUseClaims, type Logger, listen, UNREPLICATED_CLAIMS } from '@svc/platform';
import {
  acceptTerms,
  addClientKey,
  addReturnRule,
  addRule,
  createAccount,
  createApp,
  createOrg,
  createSector,
  setClaims,
} from '@svc/provisioning';
import { AUDIENCE } from '@svc/token-core';
import { type CryptoKey, exportJWK, generateKeyPair } from 'jose';
import { signClientAuth } from './client-auth';
import { contractChecked } from './contract';
import type { TestInfra } from './infra';

/**
 * What every host's deps carry of the core, over a test's infrastructure; no application cache, since fixtures
 * change an application's status between requests.
 */
export function hostPartsOf(infra: TestInfra, logger: Logger): HostParts {
  return {
    db: infra.db,
    redis: infra.redis,
    // One Redis server: nothing to wait for.
    claims: createSingleUseClaims(infra.redis, UNREPLICATED_CLAIMS),
    keyRing: infra.keyRing,
    issuance: infra.issuance,
    apps: createApplicationCache(infra.issuance.ports.applications, 0, infra.issuance.clock),
    logger,
  };
}

export function uniqueName(prefix = 't'): string {
  return `${prefix}-${randomBytes(5).toString('hex')}`;
}

/** An email domain no other test uses (email-domain policies are fleet-wide). */
export function uniqueDomain(): string {
  return `${uniqueName('dom')}.example.test`;
}

/** The same string with its middle character swapped for another base64url/hex-safe one, so it never equals the input. */
export function tamper(value: string): string {
  const at = value.length >> 1;
  const swapped = value[at] === 'a' ? 'b' : 'a';
  return `${value.slice(0, at)}${swapped}${value.slice(at + 1)}`;
}

export interface AppFixture {
  anchor: string;
  orgId: string;
  sectorId: string;
  applicationId: string;
}

export interface AppFixtureOptions {
  anchor?: string;
  sectorId?: string;
  methods?: string[];
  returnMethods?: string[];
  claims?: Record<string, string>;
  callbackDomains?: string[];
  names?: Record<string, string>;
}

/** Provisions an organization, sector and ACTIVE application (with a signing key) under unique names. */
export async function provisionApp(infra: TestInfra, opts: AppFixtureOptions = {}): Promise<AppFixture> {
  let sectorId = opts.sectorId;
  let orgId = '';
  if (!sectorId) {
    orgId = (await createOrg(infra.provisioning, uniqueName('org'))).id;
    sectorId = (await createSector(infra.provisioning, orgId, uniqueName('sector'))).id;
  }
  const anchor = opts.anchor ?? uniqueName('app');
  await createApp(
    infra.provisioning,
    infra.issuance.kek,
    {
      sectorId,
      anchor,
      names: opts.names ?? { 'en-US': `App ${anchor}`, 'zh-CN': `应用 ${anchor}` },
      callbackDomains: opts.callbackDomains,
    },
    infra.issuance.clock,
  );
  for (const method of opts.methods ?? []) await addRule(infra.provisioning, anchor, { method });
  for (const method of opts.returnMethods ?? []) await addReturnRule(infra.provisioning, anchor, method);
  if (opts.claims) await setClaims(infra.provisioning, anchor, opts.claims);
  const app = await infra.db.application.findUniqueOrThrow({ where: { anchor } });
  return { anchor, orgId, sectorId, applicationId: app.id };
}

/** A fresh account; it accepts the current basic terms unless `acceptTerms: false`. */
export async function provisionAccount(
  infra: TestInfra,
  extra: {
    givenName?: string;
    familyName?: string;
    picture?: string;
    acceptTerms?: boolean;
    /** The email domain (default example.test); the local part is always unique. */
    emailDomain?: string;
  } = {},
) {
  const { acceptTerms: accept = true, emailDomain = 'example.test', ...profile } = extra;
  const email = `${uniqueName('user')}@${emailDomain}`;
  const { id } = await createAccount(infra.provisioning, { email, ...profile });
  if (accept) await acceptTerms(infra.provisioning, id);
  return { id, email };
}

/** Registers a fresh Ed25519 client key for the application and returns its private half for signing. */
export async function provisionClientKey(
  infra: TestInfra,
  anchor: string,
): Promise<{ kid: string; key: CryptoKey }> {
  const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  const { kid } = await addClientKey(infra.provisioning, anchor, await exportJWK(publicKey));
  return { kid, key: privateKey };
}

export interface Backend {
  fixture: AppFixture;
  /** POSTs /establish signed with the application's client key. */
  establish(
    body: Record<string, unknown>,
    opts?: { url?: string },
  ): Promise<Awaited<ReturnType<typeof postJson>>>;
}

/** An application with PASSKEY_USERNAMELESS and the given return rules, and a registered client key. */
export async function provisionBackend(
  infra: TestInfra,
  connectUrl: string,
  opts: AppFixtureOptions = {},
): Promise<Backend> {
  const fixture = await provisionApp(infra, {
    methods: ['PASSKEY_USERNAMELESS'],
    returnMethods: ['CALLBACK', 'STATUS_POLL', 'REVEAL'],
    callbackDomains: ['app.example.test', 'localhost'],
    ...opts,
  });
  const { kid, key } = await provisionClientKey(infra, fixture.anchor);
  return {
    fixture,
    async establish(body, o = {}) {
      const text = JSON.stringify({ applicationAnchor: fixture.anchor, ...body });
      const jws = await signClientAuth({ key, kid, iss: fixture.anchor, aud: AUDIENCE.connect, body: text });
      return postJson(`${o.url ?? connectUrl}/establish`, text, { authorization: `ClientAuth ${jws}` });
    },
  };
}

export interface RunningTestHost {
  url: string;
  close(): Promise<void>;
}

/**
 * Listens on 127.0.0.1 on a free port. Every answer the host sends is judged against its own OpenAPI document
 * (contract.ts): an answer the document does not describe fails the test that received it.
 */
export async function startTestHost(app: RequestListener): Promise<RunningTestHost> {
  const contract = contractChecked(app);
  const server: Server = await listen(contract.listener, 0, '127.0.0.1');
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  const url = `http://127.0.0.1:${port}`;
  await contract.load(url);
  return {
    url,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export async function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
  // biome-ignore lint/suspicious/noExplicitAny: tests read the answer as the spec's JSON shape they expect
): Promise<{ status: number; body: any; headers: Headers; text: string }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, body: parsed, headers: res.headers, text };
}

/** The members of the spec's five-key claims view, sorted. */
export const CLAIM_VIEW_KEYS = ['animatedAvatar', 'email', 'firstName', 'lastName', 'staticAvatar'];

/** Asserts a token-pair answer: 200, `no-store` and `no-cache`, exactly `members`, and the five-key claims view. */
export function expectTokenPair(res: Awaited<ReturnType<typeof postJson>>, members: string[]): void {
  expect(res.status).toBe(200);
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(res.headers.get('pragma')).toBe('no-cache');
  expect(Object.keys(res.body).sort()).toEqual([...members].sort());
  expect(Object.keys(res.body.claims).sort()).toEqual(CLAIM_VIEW_KEYS);
}

export { type CapturedLog, captureLogger } from './capture-logger';
export { type CheckoutSandbox, checkoutSandbox } from './checkout-sandbox';
export { type ChildHost, type ConnectProcess, freePort, spawnHost, startConnectProcess } from './child-host';
export * from './chromium';
export { signClientAuth } from './client-auth';
export { configProblems, type SettableClock, settableClock, testEnv, testUrls } from './config';
export {
  type CompiledDocument,
  type ContractCheck,
  checkOpenApiDocument,
  compileDocument,
  contractChecked,
  judgeAgainst,
} from './contract';
export * from './dpop';
export * from './engines';
export * from './event-receiver';
export { expectFailClosed, type FailoverFigures, type FailoverScenario, runFailover } from './failover';
export {
  type DependencyFault,
  type DependencyProxies,
  eachDependencyFault,
  expectOneDownOneUp,
  expectReadyzFault,
  proxyDependencies,
  type ReadyzFigures,
  recordFaultFigures,
  runContainedFault,
  stateChanges,
} from './fault-checks';
export {
  dependencyBoundMs,
  FAULT_SLACK_MS,
  loadAnswer,
  type ProxiedInfra,
  useFaultSuite,
  useProxiedInfra,
} from './fault-host';
export {
  countStatuses,
  type FaultFigures,
  type FaultScenario,
  type Load,
  type Outcome,
  runFault,
  startLoad,
  timedGet,
} from './fault-load';
export { type FaultMode, type FaultProxy, startFaultProxy } from './fault-proxy';
export { expectForgedCallsRefusedFirst, type PasskeyCall } from './forged-calls';
export {
  appTokenTarget,
  clientAuthTarget,
  type ForgedJws,
  type ForgeTarget,
  forgeAll,
  type JwsAlg,
} from './forged-jws';
export {
  expectStateKept,
  FUZZ_RUNS,
  FUZZ_SEED,
  fuzzBodies,
  fuzzForgeries,
  fuzzParams,
  fuzzTransport,
  type HostileContext,
  type HostileEndpoint,
  hostileValue,
  judgeAnswer,
  mutatedJson,
  mutatedTransport,
  newTally,
  oversizedProbes,
  type Probe,
  reportTally,
  type StateScope,
  sendProbe,
  snapshotState,
  type Tally,
} from './hostile';
export {
  type InfraOptions,
  openInfra,
  TEST_SIDE_DB_BOUNDS,
  TESTKIT_ACTOR,
  type TestInfra,
  testKek,
} from './infra';
export { type RunningTracker, trackRunning } from './left-running';
export * from './mailbox';
export { type Agent, makeAgent } from './page-agent';
export * from './page-attacks';
export { expectPageStatusTable } from './page-statuses';
export { useInfra, useStarted } from './per-file';
export {
  type MovableEndpoint,
  type PostgresPairEngine,
  type PostgresServer,
  startMovableEndpoint,
  startPostgresPair,
} from './pg-failover';
export { openPrivateDb, type PrivateDb } from './private-db';
export {
  brokenChunkedBytes,
  exchangeRaw,
  type RawAnswer,
  type RawExchange,
  type RawRequest,
  requestBytes,
  sendRaw,
} from './raw-request';
export { type ReplicaFront, startReplicaFront } from './replica-front';
export { type AddressedAnswer, expectLimitedPage, requestFrom } from './request-from';
export { alertSeries, scrapeCounter } from './scrape';
export * from './signin-pages';
export * from './soft-passkey';
export { stalledMs, timed } from './stall-meter';
export { BASELINE_TERMS, ensureBaselineTerms } from './terms';
export {
  holdInTransaction,
  holdSubjectCreation,
  type SubjectHold,
  type TransactionHold,
  whileSubjectHeld,
} from './transaction-hold';
export { waitUntil } from './wait';
