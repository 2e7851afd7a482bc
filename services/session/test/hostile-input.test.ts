// Hostile input against the real session host, PostgreSQL and Redis: mutation and property-based fuzzing of every
// JSON endpoint and forged JWS of every known trick on every token-bearing one. No 5xx, no stack trace or
// internal id in any answer, and refusals change nothing (sessions, replay keys). FUZZ_SEED replays a run.
import {
  appTokenTarget,
  clientAuthTarget,
  forgeAll,
  fuzzBodies,
  fuzzForgeries,
  type HostileContext,
  newTally,
  provisionClientKey,
  reportTally,
  signClientAuth,
  snapshotState,
} from '@svc/testkit';
import { AUDIENCE, TYP } from '@svc/token-core';
import { freshSession, type SessionHarness, startSessionHost } from './support';

jest.setTimeout(120_000);

let h: SessionHarness;
let ctx: HostileContext;
let s: Awaited<ReturnType<typeof freshSession>>;
let client: { kid: string; key: CryptoKey };
const tally = newTally();

beforeAll(async () => {
  h = await startSessionHost({ SESSION_CACHE_MS: '0' });
  s = await freshSession(h.infra);
  client = (await provisionClientKey(h.infra, s.app.anchor)) as typeof client;
  ctx = {
    tally,
    internalIds: [s.app.applicationId, s.account.id, s.issued.sid],
    state: () =>
      snapshotState(h.infra, {
        applicationId: s.app.applicationId,
        accountIds: [s.account.id],
        redisPatterns: [`replay:client-auth:${client.kid}:*`],
      }),
  };
});
afterAll(async () => {
  reportTally('session', tally);
  await h.close();
});

const clientAuth = async (body: Buffer) => ({
  authorization: `ClientAuth ${await signClientAuth({ key: client.key, kid: client.kid, iss: s.app.anchor, aud: AUDIENCE.session, body })}`,
});

describe('JSON bodies', () => {
  it('POST /refresh', () =>
    fuzzBodies(ctx, {
      url: `${h.url}/refresh`,
      valid: { refreshToken: s.issued.refreshToken },
      limit: 16_384,
    }));
  it('POST /introspect', () =>
    fuzzBodies(ctx, {
      url: `${h.url}/introspect`,
      valid: { accessToken: s.issued.accessToken },
      limit: 16_384,
    }));
  it('POST /logout', () =>
    fuzzBodies(ctx, {
      url: `${h.url}/logout`,
      valid: { refreshToken: s.issued.refreshToken },
      limit: 16_384,
    }));
  it('POST /revoke-all, unauthenticated (the JWT binds the genuine body)', async () => {
    const auth = await clientAuth(Buffer.from(JSON.stringify({ subject: 'nobody' })));
    await fuzzBodies(ctx, {
      url: `${h.url}/revoke-all`,
      valid: { subject: 'nobody' },
      limit: 16_384,
      headers: () => auth,
    });
  });
  it('POST /revoke-all, authenticated over each hostile body (only its jti is spent)', async () => {
    const dbOnly: HostileContext = {
      ...ctx,
      state: () =>
        snapshotState(h.infra, {
          applicationId: s.app.applicationId,
          accountIds: [s.account.id],
          redisPatterns: [],
        }),
    };
    await fuzzBodies(dbOnly, {
      url: `${h.url}/revoke-all`,
      valid: { subject: 'nobody-at-all' },
      limit: 16_384,
      headers: clientAuth,
      allow2xx: true,
    });
  });
});

describe('forged JWS', () => {
  let refreshForgeries: ReturnType<typeof forgeAll>;
  let accessForgeries: ReturnType<typeof forgeAll>;
  beforeAll(async () => {
    const target = (token: string, typ: string) =>
      appTokenTarget(h.infra.keyRing, s.app.applicationId, token, typ);
    refreshForgeries = forgeAll(await target(s.issued.refreshToken, TYP.refresh));
    accessForgeries = forgeAll(await target(s.issued.accessToken, TYP.accountAccess));
  });
  const json = (member: string) => (jws: string) => ({
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ [member]: jws }),
  });
  const bearer = (jws: string) => ({ headers: { authorization: `Bearer ${jws}` }, body: '' });

  it('on /refresh, /logout and /introspect', async () => {
    await fuzzForgeries(ctx, `${h.url}/refresh`, refreshForgeries, json('refreshToken'));
    await fuzzForgeries(ctx, `${h.url}/logout`, refreshForgeries, json('refreshToken'));
    await fuzzForgeries(ctx, `${h.url}/introspect`, accessForgeries, json('accessToken'));
  });
  it('on /userinfo and /claim-state', async () => {
    await fuzzForgeries(ctx, `${h.url}/userinfo`, accessForgeries, bearer, 'GET');
    await fuzzForgeries(ctx, `${h.url}/claim-state`, accessForgeries, bearer, 'GET');
  });
  it('on /revoke-all (ClientAuth)', async () => {
    const body = JSON.stringify({ subject: 'nobody' });
    const genuine = await signClientAuth({
      key: client.key,
      kid: client.kid,
      iss: s.app.anchor,
      aud: AUDIENCE.session,
      body,
    });
    const forged = forgeAll(await clientAuthTarget(h.infra.db, client, genuine));
    await fuzzForgeries(ctx, `${h.url}/revoke-all`, forged, (jws) => ({
      headers: { 'content-type': 'application/json', authorization: `ClientAuth ${jws}` },
      body,
    }));
  });
});

describe('the fuzzed session still works', () => {
  it('refreshes with the genuine token after everything above', async () => {
    const res = await fetch(`${h.url}/refresh`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refreshToken: s.issued.refreshToken }),
    });
    expect(res.status).toBe(200);
  });
});
