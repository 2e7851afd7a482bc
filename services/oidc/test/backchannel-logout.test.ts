// OIDC Back-Channel Logout 1.0 from outside: an OIDC host, a session host and the real worker as processes over a
// private database, a relying party (openid-client 6) that registered a back-channel logout URI on loopback. After
// end-session (hinted, or confirmed without a hint: every RP the sign-in session signed into, section 2.7), a
// revoke-all and an account suspension the RP's receiver gets, within 5 s, a form POST whose
// logout_token verifies as the spec says (jose against the discovery's jwks_uri: RS256, typ logout+jwt, iss, aud,
// iat, exp, jti, the ID token's sub and sid, the back-channel logout event, no nonce); a client without a URI gets
// nothing; a redirecting receiver is not followed.

import { createAccountsStore } from '@svc/issuance/stores';
import { ensureActiveKey, OIDC_SCOPE } from '@svc/keyring';
import { createOidcClient, setAccountStatus } from '@svc/provisioning';
import { passkeySignInReferences } from '@svc/signin';
import {
  type ChildHost,
  type EventReceiver,
  openPrivateDb,
  type PrivateDb,
  postJson,
  provisionAccount,
  provisionApp,
  provisionClientKey,
  signClientAuth,
  spawnHost,
  startEventReceiver,
  useInfra,
  waitUntil,
} from '@svc/testkit';
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import * as client from 'openid-client';
import { startSessionChild, startWorkerChild } from '../../worker/test/events-support';
import { type Child, freePort } from '../../worker/test/processes';
import { createAuthorizationCode } from '../src/domain/authorization';
import { createCodeStore } from '../src/store/codes';
import { createSignInSessionStore } from '../src/store/sign-in-sessions';

jest.setTimeout(120_000);

const EVENT = 'http://schemas.openid.net/event/backchannel-logout';
let pdb: PrivateDb;
let oidc: ChildHost;
let session: ChildHost;
let worker: Child;
let oidcRedisPrefix: string;
const receivers: EventReceiver[] = [];

beforeAll(async () => {
  pdb = await openPrivateDb({ prefix: 'bcl', terms: true });
  const port = await freePort();
  const oidcUrl = `http://127.0.0.1:${port}`;
  oidcRedisPrefix = `bcl-${port}`;
  [oidc, session, worker] = await Promise.all([
    spawnHost('services/oidc/src/main.ts', {
      DATABASE_URL: pdb.url,
      PORT: String(port),
      OIDC_URL: oidcUrl,
      OIDC_REDIS_PREFIX: oidcRedisPrefix,
    }),
    startSessionChild(pdb.url),
    startWorkerChild(pdb.url, { OIDC_URL: oidcUrl }),
  ]);
}, 180_000);
const infra = useInfra(() => ({ over: pdb.db }));
beforeAll(() => ensureActiveKey(pdb.db, infra.issuance.kek, OIDC_SCOPE, new Date()));
afterAll(async () => {
  for (const r of receivers) await r.close();
  await worker?.kill('SIGKILL');
  await oidc?.kill('SIGKILL');
  await session?.kill('SIGKILL');
  await pdb.drop();
});

async function receiver() {
  const r = await startEventReceiver();
  receivers.push(r);
  return r;
}

/**
 * An application with an OIDC rule, an account (`account`, else a new one), and a client registered with
 * `backchannelLogoutUri`.
 */
async function relyingParty(backchannelLogoutUri?: string, account?: { id: string }) {
  const app = await provisionApp(infra, { methods: ['OIDC'] });
  account ??= await provisionAccount(infra, { givenName: 'Ada', familyName: 'Lovelace' });
  const redirectUri = `https://rp-${Math.random().toString(36).slice(2, 10)}.example/cb`;
  const made = await createOidcClient(
    infra.provisioning,
    {
      anchor: app.anchor,
      redirectUris: [redirectUri],
      postLogoutRedirectUris: [`${new URL(redirectUri).origin}/out`],
      backchannelLogoutUri,
    },
    { production: false, allowPrivate: false },
  );
  const row = await pdb.db.oidcClient.findUniqueOrThrow({ where: { clientId: made.clientId } });
  const config = await client.discovery(
    new URL(oidc.url),
    made.clientId,
    { redirect_uris: [redirectUri] },
    client.ClientSecretBasic(made.clientSecret!),
    { execute: [client.allowInsecureRequests] },
  );
  return { app, account, redirectUri, clientId: made.clientId, row, config };
}

type Rp = Awaited<ReturnType<typeof relyingParty>>;

/**
 * A sign-in's code (as /authorize hands it over for the browser sign-in whose handle is `browserSessionId`, else a
 * new one), exchanged by openid-client: its tokens and ID token claims.
 */
async function signIn(rp: Rp, browserSessionId = Math.random().toString(36).slice(2)) {
  const nonce = client.randomNonce();
  const state = client.randomState();
  const code = await createAuthorizationCode(
    { clock: Date.now, ports: { codes: createCodeStore(pdb.db) }, oidc: { codeTtlSeconds: 60 } },
    {
      client: { id: rp.row.id, applicationId: rp.row.applicationId } as never,
      accountId: rp.account.id,
      redirectUri: rp.redirectUri,
      scope: 'openid offline_access',
      nonce,
      authTime: new Date(Math.floor(Date.now() / 1000 - 5) * 1000),
      ...passkeySignInReferences(true),
      browserSessionId,
    },
  );
  const tokens = await client.authorizationCodeGrant(
    rp.config,
    new URL(`${rp.redirectUri}?${new URLSearchParams({ code, state, iss: oidc.url })}`),
    { expectedNonce: nonce, expectedState: state, idTokenExpected: true },
  );
  return { tokens, claims: tokens.claims()! };
}

/** Verifies a logout token exactly as OIDC Back-Channel Logout 1.0 section 2.6 says an RP does; its claims. */
async function verifyLogoutToken(rp: Rp, body: string) {
  const form = new URLSearchParams(body);
  expect([...form.keys()]).toEqual(['logout_token']);
  const token = form.get('logout_token')!;
  const jwks = createRemoteJWKSet(new URL(rp.config.serverMetadata().jwks_uri!));
  const { payload, protectedHeader } = await jwtVerify(token, jwks, {
    issuer: oidc.url,
    audience: rp.clientId,
    typ: 'logout+jwt',
    algorithms: ['RS256'],
    maxTokenAge: 120,
  });
  expect(decodeProtectedHeader(token)).toEqual({ alg: 'RS256', kid: protectedHeader.kid, typ: 'logout+jwt' });
  expect(Object.keys(payload).sort()).toEqual(['aud', 'events', 'exp', 'iat', 'iss', 'jti', 'sid', 'sub']);
  expect(payload.events).toEqual({ [EVENT]: {} });
  expect(payload).not.toHaveProperty('nonce');
  expect(payload.exp! - payload.iat!).toBe(120);
  expect(typeof payload.jti).toBe('string');
  return payload;
}

test('discovery advertises back-channel logout with sessions', async () => {
  const meta = (await (await fetch(`${oidc.url}/.well-known/openid-configuration`)).json()) as Record<
    string,
    unknown
  >;
  expect(meta).toMatchObject({
    backchannel_logout_supported: true,
    backchannel_logout_session_supported: true,
  });
});

test('end-session: the RP gets a valid logout token naming the ID token sub and sid within 5 s; one without a URI gets nothing', async () => {
  const r = await receiver();
  const rp = await relyingParty(new URL('/backchannel', r.url).href);
  const quiet = await relyingParty();
  const { tokens, claims } = await signIn(rp);
  const other = await signIn(quiet);
  expect(claims.sid).toMatch(/^[A-Za-z0-9_-]{43}$/);
  const url = new URL(`${oidc.url}/end-session`);
  url.searchParams.set('id_token_hint', tokens.id_token!);
  const res = await fetch(url, { redirect: 'manual' });
  const ended = Date.now();
  expect(res.status).toBeLessThan(400);
  const [push] = await r.waitFor(1, 5_000);
  expect(push!.at - ended).toBeLessThan(5_000);
  expect([push!.method, push!.path]).toEqual(['POST', '/backchannel']);
  expect(push!.headers['content-type']).toBe('application/x-www-form-urlencoded');
  const logout = await verifyLogoutToken(rp, push!.body);
  expect({ sub: logout.sub, sid: logout.sid }).toEqual({ sub: claims.sub, sid: claims.sid });
  const rows = await pdb.db.eventOutbox.findMany({
    where: { kind: 'backchannel-logout', applicationId: rp.app.applicationId },
  });
  expect(rows.map((row) => row.id)).toEqual([logout.jti]);
  await waitUntil(
    async () =>
      (await pdb.db.eventOutbox.findUniqueOrThrow({ where: { id: rows[0]!.id } })).status === 'DELIVERED',
  );
  // The client without a back-channel URI: its session ended by an account-wide change, and no row for it.
  await setAccountStatus(infra.provisioning, quiet.account.id, 'DISABLED');
  expect(other.claims.sid).toEqual(expect.any(String));
  expect(
    await pdb.db.eventOutbox.count({
      where: { kind: 'backchannel-logout', applicationId: quiet.app.applicationId },
    }),
  ).toBe(0);
  expect(r.received).toHaveLength(1);
});

/** The status of the session an access token belongs to. */
const statusOf = async (tokens: { access_token: string }) =>
  (
    await pdb.db.session.findUniqueOrThrow({
      where: { id: decodeJwt(tokens.access_token).sid as string },
    })
  ).status;

/** Two RPs of one person, each with its receiver, both signed in through one sign-in session (handle `handle`). */
async function twoRpsOfOneSignIn(handle = Math.random().toString(36).slice(2)) {
  const [ra, rb] = [await receiver(), await receiver()];
  const a = await relyingParty(ra.url);
  const b = await relyingParty(rb.url, a.account);
  const [inA, inB] = [await signIn(a, handle), await signIn(b, handle)];
  // One sign-in session: one sid, each client its own pairwise sub.
  expect(inB.claims.sid).toBe(inA.claims.sid);
  expect(inB.claims.sub).not.toBe(inA.claims.sub);
  return { ra, rb, a, b, inA, inB };
}

/** Each RP's receiver got one logout token, for its own aud and sub, naming the sign-in session's sid. */
async function expectEachLoggedOut(...each: [EventReceiver, Rp, Awaited<ReturnType<typeof signIn>>][]) {
  for (const [r, rp, signedIn] of each) {
    const [push] = await r.waitFor(1, 5_000);
    const logout = await verifyLogoutToken(rp, push!.body);
    expect([logout.aud, logout.sub, logout.sid]).toEqual([
      rp.clientId,
      signedIn.claims.sub,
      signedIn.claims.sid,
    ]);
    expect(await statusOf(signedIn.tokens)).toBe('REVOKED');
    expect(
      await pdb.db.eventOutbox.count({
        where: { kind: 'backchannel-logout', applicationId: rp.app.applicationId },
      }),
    ).toBe(1);
  }
}

test('end-session with a hint ends its sign-in session at every RP it signed into, not only the hinted one', async () => {
  const { ra, rb, a, b, inA, inB } = await twoRpsOfOneSignIn();
  // The same person at b through another sign-in session: that one goes on.
  const elsewhere = await signIn(b);
  const url = new URL(`${oidc.url}/end-session`);
  url.searchParams.set('id_token_hint', inA.tokens.id_token!);
  expect((await fetch(url, { redirect: 'manual' })).status).toBeLessThan(400);
  await expectEachLoggedOut([ra, a, inA], [rb, b, inB]);
  expect(await statusOf(elsewhere.tokens)).toBe('ACTIVE');
  // The logout tokens of one end-session are one change: their rows share a txn.
  const txns = await pdb.db.eventOutbox.findMany({
    where: { kind: 'backchannel-logout', applicationId: { in: [a.app.applicationId, b.app.applicationId] } },
    select: { txn: true },
  });
  expect(new Set(txns.map((t) => t.txn)).size).toBe(1);
});

test('end-session confirmed without a hint ends the browser sign-in at every RP it signed into', async () => {
  const signIns = createSignInSessionStore(infra.redis, createAccountsStore(pdb.db), {
    redisPrefix: oidcRedisPrefix,
    ttlSeconds: 600,
    clock: Date.now,
  });
  const account = await provisionAccount(infra, { givenName: 'Ada', familyName: 'Lovelace' });
  const held = await signIns.start(undefined, {
    accountId: account.id,
    authority: (await createAccountsStore(pdb.db).currentAuthority(account.id))!,
    authTime: Math.floor(Date.now() / 1000),
    amr: ['hwk', 'user'],
  });
  const [ra, rb] = [await receiver(), await receiver()];
  const a = await relyingParty(ra.url, account);
  const b = await relyingParty(rb.url, account);
  const [inA, inB] = [await signIn(a, held.session.handle), await signIn(b, held.session.handle)];
  const page = await fetch(`${oidc.url}/end-session?client_id=${a.clientId}`, {
    headers: { cookie: `oidc_session=${held.id}` },
  });
  expect(page.status).toBe(200);
  const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())![1]!;
  const csrfCookie = page.headers.get('set-cookie')!.split(';')[0]!;
  const res = await fetch(`${oidc.url}/end-session`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      cookie: `oidc_session=${held.id}; ${csrfCookie}`,
    },
    body: new URLSearchParams({ client_id: a.clientId, confirm: 'yes', csrf }).toString(),
  });
  expect(res.status).toBe(200);
  expect(await signIns.read(held.id)).toBeUndefined();
  await expectEachLoggedOut([ra, a, inA], [rb, b, inB]);
});

test('suspension: the account disabled sends the RP a logout token for its sign-in', async () => {
  const r = await receiver();
  const rp = await relyingParty(r.url);
  const { claims } = await signIn(rp);
  await setAccountStatus(infra.provisioning, rp.account.id, 'DISABLED');
  const [push] = await r.waitFor(1, 5_000);
  const logout = await verifyLogoutToken(rp, push!.body);
  expect({ sub: logout.sub, sid: logout.sid }).toEqual({ sub: claims.sub, sid: claims.sid });
});

test('revoke-all at the session host: a logout token per sign-in of the RP', async () => {
  const r = await receiver();
  const rp = await relyingParty(r.url);
  const first = await signIn(rp);
  const second = await signIn(rp);
  const ck = await provisionClientKey(infra, rp.app.anchor);
  const body = JSON.stringify({ subject: first.claims.sub });
  const auth = await signClientAuth({ ...ck, iss: rp.app.anchor, aud: 'service-session', body });
  const res = await postJson(`${session.url}/revoke-all`, body, { authorization: `ClientAuth ${auth}` });
  expect(res.status).toBe(200);
  const pushes = await r.waitFor(2, 5_000);
  const sids = await Promise.all(pushes.map(async (p) => (await verifyLogoutToken(rp, p.body)).sid));
  expect(sids.sort()).toEqual([first.claims.sid, second.claims.sid].sort());
});

test('a redirecting receiver is not followed: the attempt failed, retried later', async () => {
  const elsewhere = await receiver();
  const r = await receiver();
  r.answer(() => ({ status: 307, headers: { location: elsewhere.url } }));
  const rp = await relyingParty(r.url);
  const { tokens } = await signIn(rp);
  const url = new URL(`${oidc.url}/end-session`);
  url.searchParams.set('id_token_hint', tokens.id_token!);
  await fetch(url, { redirect: 'manual' });
  await r.waitFor(1, 5_000);
  await waitUntil(async () => {
    const [row] = await pdb.db.eventOutbox.findMany({
      where: { applicationId: rp.app.applicationId, kind: 'backchannel-logout' },
    });
    return row?.lastStatus === 307;
  });
  const [row] = await pdb.db.eventOutbox.findMany({
    where: { applicationId: rp.app.applicationId, kind: 'backchannel-logout' },
  });
  expect([row!.status, row!.lastError]).toEqual(['PENDING', 'redirect: 307']);
  expect(elsewhere.received).toHaveLength(0);
});
