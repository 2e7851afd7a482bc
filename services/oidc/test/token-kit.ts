// Test support for the OIDC host's token side: the real app on a free port over the real database and Redis,
// fixtures (application with an OIDC rule, account, registered client), authorization codes made through the
// domain function /authorize calls, form posts to /token, and independent verifiers for every token.
import { createHash, createPublicKey, randomBytes } from 'node:crypto';
import type { RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { poolOf } from '@svc/db';
import { ensureActiveKey, OIDC_SCOPE } from '@svc/keyring';
import { listen } from '@svc/platform';
import { createOidcClient, type OidcAuthMethod } from '@svc/provisioning';
import { passkeySignInReferences } from '@svc/signin';
import {
  contractChecked,
  openInfra,
  provisionAccount,
  provisionApp,
  type TestInfra,
  testEnv,
  useStarted,
} from '@svc/testkit';
import { TYP } from '@svc/token-core';
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  decodeProtectedHeader,
  type JWTPayload,
  jwtVerify,
} from 'jose';
import jsonwebtoken from 'jsonwebtoken';
import { createOidcApp } from '../src/app';
import { oidcConfigFromEnv } from '../src/config';
import { type OpenedOidcDeps, openOidcDeps } from '../src/deps';
import { createAuthorizationCode } from '../src/domain/authorization';
import type { AuthorizationGrant } from '../src/domain/issue-oidc';
import type { OidcClient } from '../src/domain/ports';

export interface OidcHarness {
  infra: TestInfra;
  deps: OpenedOidcDeps;
  url: string;
  close(): Promise<void>;
}

/** The host with OIDC_URL its own address (the issuer RPs discover), over the real database and Redis. */
export async function startOidcHost(over: Record<string, string> = {}): Promise<OidcHarness> {
  const infra = openInfra();
  await ensureActiveKey(infra.db, infra.issuance.kek, OIDC_SCOPE, new Date(infra.issuance.clock()));
  // Served as a host serves (platform's listen, with its connection guard); the app exists once the URL does.
  let listener: RequestListener = (_req, res) => res.writeHead(503).end();
  const server = await listen((req, res) => listener(req, res), 0, '127.0.0.1');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const deps = openOidcDeps(oidcConfigFromEnv(testEnv({ OIDC_URL: url, ...over })), infra.issuance.clock);
  const contract = contractChecked(createOidcApp(deps));
  listener = contract.listener;
  await contract.load(url);
  return {
    infra,
    deps,
    url,
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(() => r(undefined)));
      await deps.close();
      await infra.close();
    },
  };
}

/** startOidcHost's host for a test file: started before its tests, closed after (filled in beforeAll). */
export function useOidcHost(over: Record<string, string> = {}): OidcHarness {
  return useStarted(() => startOidcHost(over));
}

export interface RpFixture {
  anchor: string;
  applicationId: string;
  accountId: string;
  client: OidcClient;
  clientSecret?: string;
  redirectUri: string;
  postLogoutRedirectUri: string;
}

/** A fresh application (OIDC rule, claim policy), account and client registered with `authMethod`. */
export async function provisionRp(
  h: OidcHarness,
  opts: {
    authMethod?: OidcAuthMethod;
    claims?: NonNullable<Parameters<typeof provisionApp>[1]>['claims'];
    account?: Parameters<typeof provisionAccount>[1];
    webOrigins?: string[];
    /**
     * Web origins written to the client's row directly, as a confidential client registered before #37 (which
     * refuses them) has them.
     */
    storedWebOrigins?: string[];
    /** The device grant: the client registers it alone, the application gets its two rules. */
    device?: boolean;
  } = {},
): Promise<RpFixture> {
  const app = await provisionApp(
    h.infra,
    opts.device
      ? { methods: ['OIDC', 'PASSKEY_USERNAMELESS'], returnMethods: ['DEVICE_CODE'], claims: opts.claims }
      : { methods: ['OIDC'], claims: opts.claims },
  );
  const account = await provisionAccount(
    h.infra,
    opts.account ?? { givenName: 'Ada', familyName: 'Lovelace' },
  );
  const redirectUri = `https://rp-${randomBytes(4).toString('hex')}.example/callback`;
  const postLogoutRedirectUri = `${new URL(redirectUri).origin}/signed-out`;
  const created = await createOidcClient(h.infra.provisioning, {
    anchor: app.anchor,
    redirectUris: opts.device ? [] : [redirectUri],
    postLogoutRedirectUris: opts.device ? [] : [postLogoutRedirectUri],
    authMethod: opts.authMethod ?? 'client_secret_basic',
    webOrigins: opts.webOrigins,
    grants: opts.device ? ['device_code'] : undefined,
  });
  if (opts.storedWebOrigins) {
    await h.infra.db.oidcClient.update({
      where: { clientId: created.clientId },
      data: { webOrigins: opts.storedWebOrigins },
    });
  }
  const client = await h.deps.ports.clients.get(created.clientId);
  if (!client) throw new Error('client not readable');
  return {
    anchor: app.anchor,
    applicationId: app.applicationId,
    accountId: account.id,
    client,
    clientSecret: 'clientSecret' in created ? created.clientSecret : undefined,
    redirectUri,
    postLogoutRedirectUri,
  };
}

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** The grant /authorize would hand over after a passkey sign-in a minute ago. */
export function grantFor(rp: RpFixture, extra: Partial<AuthorizationGrant> = {}): AuthorizationGrant {
  return {
    client: rp.client,
    accountId: rp.accountId,
    redirectUri: rp.redirectUri,
    scope: 'openid profile email offline_access',
    nonce: randomBytes(12).toString('base64url'),
    authTime: new Date(Math.floor(Date.now() / 1000 - 60) * 1000),
    ...passkeySignInReferences(true),
    browserSessionId: randomBytes(8).toString('hex'),
    ...extra,
  };
}

export function codeFor(h: OidcHarness, grant: AuthorizationGrant): Promise<string> {
  return createAuthorizationCode(h.deps, grant);
}

export interface Answer {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests read the answer as the spec's JSON shape they expect
  body: any;
}

/** POSTs a form to /token (or `path`), authenticating as `auth` says. */
export async function postForm(
  h: OidcHarness,
  fields: Record<string, string | undefined>,
  auth?: { basic?: [string, string]; origin?: string },
  path = '/token',
): Promise<Answer> {
  const form = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) form.set(k, v);
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (auth?.origin) headers.origin = auth.origin;
  if (auth?.basic) {
    const [id, secret] = auth.basic.map((v) => encodeURIComponent(v));
    headers.authorization = `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
  }
  const res = await fetch(`${h.url}${path}`, { method: 'POST', headers, body: form.toString() });
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  return { status: res.status, headers: res.headers, body };
}

/** Exchanges a code as the fixture's client (Basic or post by its method, client_id alone for none). */
export function exchange(h: OidcHarness, rp: RpFixture, code: string, extra: Record<string, string> = {}) {
  return postForm(
    h,
    tokenFields(rp, { grant_type: 'authorization_code', code, redirect_uri: rp.redirectUri, ...extra }),
    authOf(rp),
  );
}

export function refresh(h: OidcHarness, rp: RpFixture, refreshToken: string) {
  return postForm(
    h,
    tokenFields(rp, { grant_type: 'refresh_token', refresh_token: refreshToken }),
    authOf(rp),
  );
}

export function authOf(rp: RpFixture) {
  return rp.client.authMethod === 'client_secret_basic'
    ? { basic: [rp.client.clientId, rp.clientSecret!] as [string, string] }
    : undefined;
}

export function tokenFields(rp: RpFixture, fields: Record<string, string>) {
  if (rp.client.authMethod === 'client_secret_post') {
    return { ...fields, client_id: rp.client.clientId, client_secret: rp.clientSecret! };
  }
  if (rp.client.authMethod === 'none') return { ...fields, client_id: rp.client.clientId };
  return fields;
}

/** OpenID Connect Core 3.1.3.6: base64url of the left half of SHA-256 of the ASCII token, computed here. */
export function halfHash(value: string): string {
  return createHash('sha256').update(value, 'ascii').digest().subarray(0, 16).toString('base64url');
}

/**
 * Verifies an ID token twice, independently: jose against the host's remote JWKS (as an RP does), and
 * jsonwebtoken against the published JWK turned into a PEM key. Both must agree.
 */
export async function verifyIdToken(h: OidcHarness, idToken: string, clientId: string): Promise<JWTPayload> {
  const jwks = createRemoteJWKSet(new URL(`${h.url}/.well-known/jwks.json`));
  const { payload, protectedHeader } = await jwtVerify(idToken, jwks, {
    issuer: h.url,
    audience: clientId,
    algorithms: ['RS256'],
  });
  expect(protectedHeader.alg).toBe('RS256');
  const set = (await (await fetch(`${h.url}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] };
  const jwk = set.keys.find((k) => k.kid === protectedHeader.kid);
  const pem = createPublicKey({ key: jwk as never, format: 'jwk' }).export({ type: 'spki', format: 'pem' });
  const second = jsonwebtoken.verify(idToken, pem, {
    algorithms: ['RS256'],
    issuer: h.url,
    audience: clientId,
  });
  expect(second).toEqual(payload);
  return payload;
}

/** Verifies an access token as the application backend does: the application's own JWK Set, typ, aud, iss. */
export async function verifyAccessToken(h: OidcHarness, token: string, rp: RpFixture): Promise<JWTPayload> {
  const { keys } = await h.infra.keyRing.jwks(rp.applicationId);
  const { payload, protectedHeader } = await jwtVerify(token, createLocalJWKSet({ keys: keys as never }), {
    issuer: h.deps.issuer,
    audience: rp.anchor,
    typ: TYP.accountAccess,
    algorithms: ['RS256'],
  });
  // Never the platform OIDC key.
  const oidcKids = (await h.infra.keyRing.jwks(OIDC_SCOPE)).keys.map((k) => k.kid);
  expect(oidcKids).not.toContain(protectedHeader.kid);
  expect(decodeProtectedHeader(token).typ).toBe(TYP.accountAccess);
  return payload;
}

/**
 * The prepared statement name and text (or the text) of every query the host's pg clients send while `run` runs,
 * Prisma's and the prepared statements' alike: observed on the pool's client class, passed through unchanged.
 */
export async function statementsDuring(h: OidcHarness, run: () => Promise<unknown>): Promise<string[]> {
  const pool = poolOf(h.deps.db)!;
  const client = await pool.connect();
  const proto = Object.getPrototypeOf(client) as { query: (...args: unknown[]) => unknown };
  client.release();
  const real = proto.query;
  const seen: string[] = [];
  proto.query = function (this: unknown, ...args: unknown[]) {
    const q = args[0] as string | { text?: string; name?: string };
    seen.push(typeof q === 'string' ? q : `${q.name ?? ''} ${q.text ?? ''}`);
    return real.apply(this, args);
  };
  try {
    await run();
  } finally {
    proto.query = real;
  }
  return seen;
}
