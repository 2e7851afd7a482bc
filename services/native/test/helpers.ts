// Test support for the native host: the app on a free port over the real database and Redis, a Steam Web API
// stand-in that records every call, assertion signing, and fixtures that keep basic terms settled.
import { createHash, randomBytes, randomInt } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HostParts } from '@svc/host';
import { createAgreementsStore } from '@svc/issuance/stores';
import { createLogger } from '@svc/platform';
import {
  acceptTerms,
  createAccessKey,
  createWorkload,
  publishTerms,
  registerPublicKey,
} from '@svc/provisioning';
import type { RunningTestHost, TestInfra } from '@svc/testkit';
import {
  hostPartsOf,
  openInfra,
  postJson,
  provisionAccount,
  provisionApp,
  startTestHost,
  testEnv,
  uniqueName,
} from '@svc/testkit';
import { AUDIENCE, TYP } from '@svc/token-core';
import { type CryptoKey, exportJWK, generateKeyPair, SignJWT } from 'jose';
import { createNativeApp } from '../src/app';
import { type NativeConfig, type NativeDeps, nativeConfigFromEnv, nativeDepsOf } from '../src/deps';

export { openInfra, uniqueName };

export function nativeDeps(
  infra: TestInfra,
  config: Partial<NativeConfig> = {},
  extra: Partial<HostParts> = {},
): NativeDeps {
  const base = nativeConfigFromEnv(testEnv());
  return nativeDepsOf(
    { ...hostPartsOf(infra, createLogger('native-test', { level: 'silent' })), ...extra },
    {
      ...base,
      steamApiKey: 'test-publisher-key',
      rateLimit: { ...base.rateLimit, prefix: uniqueName('rl') },
      ...config,
    },
  );
}

export async function startNative(
  infra: TestInfra,
  config: Partial<NativeConfig> = {},
  extra: Partial<HostParts> = {},
): Promise<RunningTestHost> {
  return startTestHost(createNativeApp(nativeDeps(infra, config, extra)));
}

/**
 * Two replicas of the host over `infra` with one configuration (their limits count once, in Redis), closed after
 * `use`.
 */
export async function withTwoReplicas<T>(
  infra: TestInfra,
  config: Partial<NativeConfig>,
  use: (r1: RunningTestHost, r2: RunningTestHost) => Promise<T>,
): Promise<T> {
  const r1 = await startNative(infra, config);
  const r2 = await startNative(infra, config);
  try {
    return await use(r1, r2);
  } finally {
    await r1.close();
    await r2.close();
  }
}

export interface NativeSetup {
  infra: TestInfra;
  /** The Steam Web API stand-in the hosts ask. */
  steam: SteamStandIn;
  /** The host tests talk to. */
  host: RunningTestHost;
  /** A second replica over the same PostgreSQL and Redis, when asked for. */
  replica: RunningTestHost;
}

/**
 * The infrastructure, a Steam Web API stand-in and a native host asking it (plus `replicas` more), for a test file:
 * opened before its tests, closed after (filled in beforeAll). `config` is the hosts' (Steam's address and a 2 s
 * timeout unless it says otherwise).
 */
export function useNativeHost(opts: { replicas?: 0 | 1; config?: Partial<NativeConfig> } = {}): NativeSetup {
  const setup = {} as NativeSetup;
  beforeAll(async () => {
    setup.infra = openInfra();
    setup.steam = await startSteamStandIn();
    const config = { steamApiUrl: setup.steam.url, steamTimeoutMs: 2000, ...opts.config };
    setup.host = await startNative(setup.infra, config);
    if (opts.replicas) setup.replica = await startNative(setup.infra, config);
  });
  afterAll(async () => {
    await setup.host?.close();
    await setup.replica?.close();
    await setup.steam?.close();
    await setup.infra?.close();
  });
  return setup;
}

/** Makes sure basic terms exist (publishing a first revision only if none was ever published). */
export async function ensureTerms(infra: TestInfra) {
  const existing = await createAgreementsStore(infra.db).currentTerms();
  if (existing) return existing;
  const doc = (title: string) => ({
    schemaVersion: 1,
    title,
    sections: [
      { heading: 'Use', paragraphs: ['Be kind.'], link: { label: 'More', url: 'https://example.test/t' } },
    ],
  });
  await publishTerms(
    infra.provisioning,
    { locales: { 'en-US': { document: doc('Basic Terms') }, 'zh-CN': { document: doc('基本条款') } } },
    infra.issuance.connectUrl,
  );
  return (await createAgreementsStore(infra.db).currentTerms())!;
}

/** An account with a profile that has accepted the current basic terms (when any exist). */
export async function settledAccount(infra: TestInfra) {
  const account = await provisionAccount(infra, { givenName: 'Ada', familyName: 'Lovelace' });
  if (await createAgreementsStore(infra.db).currentTerms()) await acceptTerms(infra.provisioning, account.id);
  return account;
}

export type Kind = 'ACCOUNT' | 'AGENT' | 'AUTOMATION';

async function workloadFor(infra: TestInfra, accountId: string, kind: Kind) {
  if (kind === 'ACCOUNT') return {};
  const { id } = await createWorkload(infra.provisioning, kind, accountId, uniqueName(kind.toLowerCase()));
  return kind === 'AGENT' ? { agentId: id, workloadId: id } : { automationId: id, workloadId: id };
}

/** Where a test credential applies: an application's anchor, or `{sectorId}` for every application of a sector. */
export type AppliesTo = string | { sectorId: string };
const applicability = (to: AppliesTo) => (typeof to === 'string' ? { anchor: to } : to);

export async function accessKeyFor(
  infra: TestInfra,
  anchor: AppliesTo,
  accountId: string,
  kind: Kind = 'ACCOUNT',
) {
  const w = await workloadFor(infra, accountId, kind);
  const key = await createAccessKey(infra.provisioning, { ...applicability(anchor), accountId, ...w });
  return { ...key, workloadId: w.workloadId };
}

export async function publicKeyFor(
  infra: TestInfra,
  anchor: AppliesTo,
  accountId: string,
  kind: Kind = 'ACCOUNT',
) {
  const w = await workloadFor(infra, accountId, kind);
  const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  const { kid } = await registerPublicKey(infra.provisioning, {
    ...applicability(anchor),
    accountId,
    ...w,
    jwk: await exportJWK(publicKey),
  });
  return { kid, key: privateKey, workloadId: w.workloadId };
}

/**
 * An application admitting `methods` (PUBLIC_KEY_DIRECT by default), an account (one with settled terms unless
 * given), a public key of `kind` registered for it, and the body its direct issue sends.
 */
export async function publicKeyFixture(
  infra: TestInfra,
  opts: { methods?: string[]; kind?: Kind; account?: { id: string } } = {},
) {
  const app = await provisionApp(infra, { methods: opts.methods ?? ['PUBLIC_KEY_DIRECT'] });
  const account = opts.account ?? (await settledAccount(infra));
  const cred = await publicKeyFor(infra, app.anchor, account.id, opts.kind);
  return { app, account, cred, body: JSON.stringify({ applicationAnchor: app.anchor }) };
}

export type PublicKeyFixture = Awaited<ReturnType<typeof publicKeyFixture>>;

/**
 * POSTs `body` (the fixture's unless given) to the host's /direct-issue/public-key with a fresh assertion over the
 * fixture's body; `o` breaks the assertion on purpose.
 */
export async function sendPublicKey(
  host: RunningTestHost,
  f: PublicKeyFixture,
  o: AssertionOptions = {},
  body = f.body,
) {
  const jws = await signAssertion(f.cred.key, f.cred.kid, f.body, o);
  return postJson(`${host.url}/direct-issue/public-key`, body, { authorization: `PublicKey ${jws}` });
}

export interface AssertionOptions {
  iss?: string;
  aud?: string;
  typ?: string;
  alg?: string;
  lifetimeSeconds?: number;
  iatOffsetSeconds?: number;
  jti?: string;
  requestHash?: string;
  extraHeader?: Record<string, unknown>;
  extraClaims?: Record<string, unknown>;
  omitClaim?: string;
}

/** Signs a public-key assertion over `body` the way a native client would; options break it on purpose. */
export async function signAssertion(
  key: CryptoKey,
  kid: string,
  body: string | Uint8Array,
  o: AssertionOptions = {},
) {
  const iat = Math.floor(Date.now() / 1000) + (o.iatOffsetSeconds ?? 0);
  const claims: Record<string, unknown> = {
    iss: o.iss ?? kid,
    aud: o.aud ?? AUDIENCE.nativePublicKey,
    iat,
    exp: iat + (o.lifetimeSeconds ?? 60),
    jti: o.jti ?? randomBytes(16).toString('base64url'),
    requestHash: o.requestHash ?? createHash('sha256').update(body).digest('base64url'),
    ...o.extraClaims,
  };
  if (o.omitClaim) delete claims[o.omitClaim];
  return new SignJWT(claims)
    .setProtectedHeader({
      alg: o.alg ?? 'EdDSA',
      typ: o.typ ?? TYP.publicKeyAssertion,
      kid,
      ...o.extraHeader,
    } as never)
    .sign(key);
}

export interface SteamCall {
  path: string;
  query: Record<string, string>;
}

export interface SteamStandIn {
  url: string;
  calls: SteamCall[];
  /** steam id answered for a ticket; default a fresh id per ticket. */
  users: Map<string, string>;
  /** Per-ticket behaviour: 'ok' (default), 'invalid', 'http500', 'hang', 'banned'. */
  modes: Map<string, 'ok' | 'invalid' | 'http500' | 'hang' | 'banned'>;
  close(): Promise<void>;
}

/** A local Steam Web API stand-in speaking AuthenticateUserTicket's JSON shapes. */
export async function startSteamStandIn(): Promise<SteamStandIn> {
  const calls: SteamCall[] = [];
  const users = new Map<string, string>();
  const modes = new Map<string, 'ok' | 'invalid' | 'http500' | 'hang' | 'banned'>();
  const server = http.createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    const query = Object.fromEntries(u.searchParams.entries());
    calls.push({ path: u.pathname, query });
    const ticket = query.ticket ?? '';
    const mode = modes.get(ticket) ?? 'ok';
    if (u.pathname !== '/ISteamUserAuth/AuthenticateUserTicket/v1/' || req.method !== 'GET') {
      res.writeHead(404).end();
      return;
    }
    if (mode === 'hang') return; // never answers: the client's timeout must fire
    if (mode === 'http500') {
      res.writeHead(500, { 'content-type': 'text/html' }).end('<html>oops</html>');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    if (mode === 'invalid') {
      res.end(JSON.stringify({ response: { error: { errorcode: 101, errordesc: 'Invalid ticket' } } }));
      return;
    }
    const steamid = users.get(ticket) ?? freshSteamId();
    res.end(
      JSON.stringify({
        response: {
          params: {
            result: 'OK',
            steamid,
            ownersteamid: steamid,
            vacbanned: false,
            publisherbanned: mode === 'banned',
          },
        },
      }),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    users,
    modes,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export const freshTicket = () => randomBytes(64).toString('hex');

/** A fresh ticket the stand-in vouches for as a fresh Steam user already linked to `accountId` (a returning player). */
export async function linkedTicket(
  n: { infra: TestInfra; steam: SteamStandIn },
  accountId: string,
): Promise<string> {
  const steamId = freshSteamId();
  await n.infra.db.platformLink.create({ data: { platform: 'STEAM', platformUserId: steamId, accountId } });
  const ticket = freshTicket();
  n.steam.users.set(ticket, steamId);
  return ticket;
}

/** A random 17-digit SteamID64 in the individual-account range, so tests never share a Steam user. */
export const freshSteamId = () => `7656119${String(randomInt(0, 1e10)).padStart(10, '0')}`;

/** What any change of the account's identity authority does (status, credentials, SSO authority): a new version. */
export async function bumpAuthority(infra: TestInfra, accountId: string): Promise<void> {
  await infra.db.account.update({ where: { id: accountId }, data: { authorityVersion: { increment: 1 } } });
}

export async function sessionCount(infra: TestInfra, accountId: string): Promise<number> {
  return infra.db.session.count({ where: { accountId } });
}
