// Hostile input against the real native host, PostgreSQL and Redis: mutation and property-based fuzzing of the
// three direct-issue endpoints and /errand, forged JWS on the token-bearing ones (public-key assertions, /errand).
// No 5xx, no stack trace or internal id, and refusals change nothing: sessions, errands, replay keys, and (for
// bodies refused before any check) rate-limit counters. FUZZ_SEED replays a run.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { addRule } from '@svc/provisioning';
import {
  appTokenTarget,
  forgeAll,
  fuzzBodies,
  fuzzForgeries,
  fuzzTransport,
  type HostileContext,
  newTally,
  provisionApp,
  type RunningTestHost,
  reportTally,
  snapshotState,
  uniqueName,
  useInfra,
} from '@svc/testkit';
import { TYP } from '@svc/token-core';
import { decodeJwt, exportJWK, type JWK } from 'jose';
import {
  accessKeyFor,
  ensureTerms,
  freshTicket,
  publicKeyFor,
  settledAccount,
  signAssertion,
  startNative,
} from './helpers';

jest.setTimeout(120_000);

const infra = useInfra();
let host: RunningTestHost;
let steam: http.Server;
let anchor: string;
let applicationId: string;
let accountId: string;
let access: Awaited<ReturnType<typeof accessKeyFor>>;
let pub: Awaited<ReturnType<typeof publicKeyFor>>;
let issued: { accessToken: string; refreshToken: string };
const prefix = uniqueName('rl');
const tally = newTally();
let ctx: HostileContext;

const state = (redisPatterns: string[]) => () =>
  snapshotState(infra, { applicationId, accountIds: [accountId], redisPatterns });

beforeAll(async () => {
  await ensureTerms(infra);
  // A Steam stand-in that refuses every ticket: no hostile ticket can sign anyone in.
  steam = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ response: { error: { errorcode: 101, errordesc: 'Invalid ticket' } } }));
  });
  await new Promise<void>((r) => steam.listen(0, '127.0.0.1', () => r()));
  host = await startNative(infra, {
    steamApiUrl: `http://127.0.0.1:${(steam.address() as AddressInfo).port}`,
    steamTimeoutMs: 1000,
    // Far above what the suite sends from one address: it is the body handling under test, not the limits.
    rateLimit: { prefix, addressPoints: 1_000_000, credentialPoints: 1_000_000, windowSeconds: 600 },
  });
  const app = await provisionApp(infra, { methods: ['ACCESS_KEY_DIRECT', 'PUBLIC_KEY_DIRECT'] });
  await addRule(infra.provisioning, app.anchor, { method: 'PLATFORM_TICKET', platformAppIds: [480n] });
  anchor = app.anchor;
  applicationId = app.applicationId;
  accountId = (await settledAccount(infra)).id;
  access = await accessKeyFor(infra, anchor, accountId);
  pub = await publicKeyFor(infra, anchor, accountId);
  const res = await fetch(`${host.url}/direct-issue/access-key`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      applicationAnchor: anchor,
      accessKeyIdentifier: access.accessKeyIdentifier,
      accessKeySecret: access.accessKeySecret,
    }),
  });
  expect(res.status).toBe(200);
  issued = (await res.json()) as typeof issued;
  ctx = {
    tally,
    internalIds: [applicationId, accountId, decodeJwt(issued.accessToken).sid as string],
    // Platform tickets are spent when presented (claimed before Steam is asked, the single-use rule), and their
    // replay keys are not scoped to this test; sessions and errands show that no hostile ticket signed anyone in.
    state: state([`replay:public-key:${pub.kid}:*`]),
  };
});
afterAll(async () => {
  reportTally('native', tally);
  await host.close();
  await new Promise((r) => steam.close(r));
});

const LIMIT = 16_384;
const endpoints = () => ({
  'access-key': {
    url: `${host.url}/direct-issue/access-key`,
    valid: {
      applicationAnchor: anchor,
      accessKeyIdentifier: access.accessKeyIdentifier,
      accessKeySecret: access.accessKeySecret,
    },
    limit: LIMIT,
  },
  'public-key': {
    url: `${host.url}/direct-issue/public-key`,
    valid: { applicationAnchor: anchor },
    limit: LIMIT,
    // Signed over each hostile body, so the body itself is what gets judged.
    headers: async (body: Buffer) => ({
      authorization: `PublicKey ${await signAssertion(pub.key, pub.kid, body)}`,
    }),
  },
  'platform-ticket': {
    url: `${host.url}/direct-issue/platform-ticket`,
    valid: { applicationAnchor: anchor, platformTicketHex: freshTicket(), platformAppId: 480 },
    limit: LIMIT,
  },
  errand: { url: `${host.url}/errand`, valid: { accessToken: issued.accessToken }, limit: LIMIT },
});

describe('JSON bodies', () => {
  it.each(['access-key', 'public-key', 'platform-ticket', 'errand'] as const)('POST %s', (name) =>
    fuzzBodies(ctx, endpoints()[name]),
  );

  it('a body refused for its transport spends no rate-limit point', async () => {
    const counted: HostileContext = { ...ctx, state: state([`rl:${prefix}*`]) };
    await fuzzTransport(counted, endpoints()['access-key'], 20);
    await fuzzTransport(counted, endpoints()['public-key'], 20);
  });
});

describe('forged JWS', () => {
  it('public-key assertions', async () => {
    const body = JSON.stringify({ applicationAnchor: anchor });
    const genuine = await signAssertion(pub.key, pub.kid, body);
    const { d: _private, ...publicJwk } = await exportJWK(pub.key);
    const forged = forgeAll({
      alg: 'EdDSA',
      kid: pub.kid,
      typ: TYP.publicKeyAssertion,
      claims: decodeJwt(genuine) as Record<string, unknown>,
      publicJwk: publicJwk as JWK,
      realKey: pub.key,
      genuine,
    });
    await fuzzForgeries(ctx, `${host.url}/direct-issue/public-key`, forged, (jws) => ({
      headers: { 'content-type': 'application/json', authorization: `PublicKey ${jws}` },
      body,
    }));
  });

  it('access tokens on /errand', async () => {
    const forged = forgeAll(
      await appTokenTarget(infra.keyRing, applicationId, issued.accessToken, TYP.accountAccess),
    );
    await fuzzForgeries(ctx, `${host.url}/errand`, forged, (jws) => ({
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ accessToken: jws }),
    }));
  });
});
