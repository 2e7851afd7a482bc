// The device grant (RFC 8628) on the standard wire, over HTTP against the real host: openid-client v6 starts it at
// device_authorization_endpoint and polls /token while the person approves (here through the shared store's
// decision, exactly what the device host's approval page writes; services/device/test/oidc-device-grant.test.ts
// approves in Chromium), then refreshes; the RFC's polling errors; slow_down that grows and persists across two
// replicas; opt-in per client; one user-code space with the spec's wire.
import { randomBytes } from 'node:crypto';
import { passkeySignInReferences } from '@svc/signin';
import { decodeJwt } from 'jose';
import * as client from 'openid-client';
import * as kit from './token-kit';

// A one-second interval so openid-client's waits stay short; a two-minute lifetime.
// Two replicas on device state of their own (the polling hashes and the per-address counters), so this file's starts
// never meet another run's limit.
const PREFIX = `dev-${randomBytes(4).toString('hex')}`;
const mainEnv = {
  DEVICE_POLL_INTERVAL_SECONDS: '1',
  DEVICE_CODE_TTL_SECONDS: '120',
  DEVICE_REDIS_PREFIX: PREFIX,
};
const h = kit.useOidcHost(mainEnv);
const replica = kit.useOidcHost(mainEnv);
// Two replicas that allow three polls of unknown codes per address, on counters of their own.
const limitedEnv = {
  DEVICE_POLL_INTERVAL_SECONDS: '1',
  DEVICE_RATE_UNKNOWN_PER_ADDRESS: '3',
  DEVICE_REDIS_PREFIX: `dev-${randomBytes(4).toString('hex')}`,
};
const limited = kit.useOidcHost(limitedEnv);
const limitedReplica = kit.useOidcHost(limitedEnv);
// Two replicas that start three authorizations per address per window, on counters of their own.
const startLimitedEnv = {
  DEVICE_RATE_AUTHORIZE_PER_ADDRESS: '3',
  DEVICE_REDIS_PREFIX: `dev-${randomBytes(4).toString('hex')}`,
};
const startLimited = kit.useOidcHost(startLimitedEnv);
const startLimitedReplica = kit.useOidcHost(startLimitedEnv);

const GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/** The person's decision as the approval page records it: mark the polling state, then write PostgreSQL. */
async function decide(userCode: string, accountId: string | 'deny') {
  const { authorizations, polling } = h.deps.ports.deviceGrant;
  const row = await authorizations.pendingByUserCode(userCode, new Date());
  if (!row) throw new Error('no pending authorization');
  await polling.markDeciding(row.deviceCodeHash, row.expiresAt);
  if (accountId === 'deny') {
    await authorizations.deny(row.id, new Date());
    return;
  }
  const account = await h.infra.db.account.findUniqueOrThrow({ where: { id: accountId } });
  await authorizations.approve(
    row.id,
    {
      accountId,
      authMethod: 'PASSKEY_USERNAMELESS',
      authTime: new Date(Math.floor(Date.now() / 1000 - 30) * 1000),
      authorityVersion: account.authorityVersion,
      consent: null,
      amr: passkeySignInReferences(true).amr,
      acr: passkeySignInReferences(true).acr ?? null,
    },
    new Date(),
  );
}

const start = (rp: kit.RpFixture, scope = 'openid offline_access', on: kit.OidcHarness = h) =>
  kit.postForm(on, { client_id: rp.client.clientId, scope }, undefined, '/device-authorization');
const poll = (rp: kit.RpFixture, deviceCode: string, on = h) =>
  kit.postForm(
    on,
    { grant_type: GRANT, device_code: deviceCode, client_id: rp.client.clientId },
    undefined,
    '/token',
  );

/** A poll as a well-behaved device sends it: the interval (1 s, plus margin) after the previous one. */
const pollOnTime = async (rp: kit.RpFixture, deviceCode: string, on = h) => {
  await new Promise((r) => setTimeout(r, 1100));
  return poll(rp, deviceCode, on);
};

describe('device grant, standard wire', () => {
  it('discovery names it', async () => {
    const meta = await (await fetch(`${h.url}/.well-known/openid-configuration`)).json();
    expect(meta.device_authorization_endpoint).toBe(`${h.url}/device-authorization`);
    expect(meta.grant_types_supported).toContain(GRANT);
  });

  it('openid-client: device authorization, polling until approved, an OIDC token response, then refresh', async () => {
    const rp = await kit.provisionRp(h, { authMethod: 'client_secret_basic', device: true });
    const config = await client.discovery(
      new URL(h.url),
      rp.client.clientId,
      {},
      client.ClientSecretBasic(rp.clientSecret!),
      { execute: [client.allowInsecureRequests] },
    );
    const started = await client.initiateDeviceAuthorization(config, {
      scope: 'openid email offline_access',
    });
    expect(started.user_code).toMatch(/^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/);
    expect(started.verification_uri).toMatch(/\/device$/);
    expect(started.verification_uri_complete).toBe(
      `${started.verification_uri}?user_code=${started.user_code}`,
    );
    expect(started.interval).toBe(1);
    const polling = client.pollDeviceAuthorizationGrant(config, started);
    // The person approves a moment later, while the device polls (it has been told authorization_pending).
    await decide(started.user_code, rp.accountId);
    const tokens = await polling;
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.scope).toBe('openid email offline_access');
    const id = tokens.claims()!;
    expect(id.aud).toBe(rp.client.clientId);
    expect(id.amr).toEqual(['hwk', 'user', 'mfa']);
    expect(typeof id.auth_time).toBe('number');
    expect(id).not.toHaveProperty('nonce');
    const access = decodeJwt(tokens.access_token);
    expect(access.aud).toBe(rp.anchor);
    expect(access.sub).toBe(id.sub);
    expect(tokens.refresh_token).toBeDefined();
    // The session is an OIDC one of this client: /userinfo answers, and it refreshes at /token.
    const info = await client.fetchUserInfo(config, tokens.access_token, id.sub);
    expect(info.sub).toBe(id.sub);
    const renewed = await client.refreshTokenGrant(config, tokens.refresh_token!);
    expect(renewed.claims()!.auth_time).toBe(id.auth_time);
    expect(renewed.refresh_token).not.toBe(tokens.refresh_token);
    // Consumed: the code issues nothing again.
    const again = await kit.postForm(
      h,
      { grant_type: GRANT, device_code: started.device_code },
      kit.authOf(rp),
    );
    expect(again.body.error).toBe('invalid_grant');
  });

  it('a public client; without offline_access no refresh token; access_denied when the person denies', async () => {
    const rp = await kit.provisionRp(h, { authMethod: 'none', device: true });
    const a = (await start(rp, 'openid')).body;
    await decide(a.user_code, rp.accountId);
    const ok = await poll(rp, a.device_code);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('cache-control')).toBe('no-store');
    expect(ok.body.refresh_token).toBeUndefined();
    expect(ok.body.scope).toBe('openid');

    const b = (await start(rp)).body;
    expect((await poll(rp, b.device_code)).body.error).toBe('authorization_pending');
    await decide(b.user_code, 'deny');
    const denied = await pollOnTime(rp, b.device_code);
    expect(denied.status).toBe(400);
    expect(denied.body.error).toBe('access_denied');
  });

  it('slow_down grows and persists across two replicas', async () => {
    const rp = await kit.provisionRp(h, { authMethod: 'none', device: true });
    const a = (await start(rp)).body;
    expect((await poll(rp, a.device_code, h)).body.error).toBe('authorization_pending');
    // Too soon, on the other replica: slow_down, and the interval grows there for both.
    const first = await poll(rp, a.device_code, replica);
    expect(first.body.error).toBe('slow_down');
    expect((await poll(rp, a.device_code, h)).body.error).toBe('slow_down');
    const row = await h.infra.db.deviceAuthorization.findFirstOrThrow({ where: { userCode: a.user_code } });
    const key = `${PREFIX}:poll:${row.deviceCodeHash}`;
    expect(Number(await h.deps.redis.hget(key, 'i'))).toBe(11);
    expect(Number(await replica.deps.redis.hget(key, 'i'))).toBe(11);
  });

  it('polls of unknown codes are limited per address across replicas (slow_down); a known code is not counted', async () => {
    const rp = await kit.provisionRp(limited, { authMethod: 'none', device: true });
    const invented = () => `odc_${randomBytes(32).toString('hex')}`;
    const known = (await start(rp, 'openid', limited)).body;
    const answers = [];
    for (const on of [limited, limitedReplica, limited])
      answers.push((await poll(rp, invented(), on)).body.error);
    expect(answers).toEqual(['invalid_grant', 'invalid_grant', 'invalid_grant']);
    // The fourth, on either replica: slowed before PostgreSQL is read.
    const fourth = await poll(rp, invented(), limitedReplica);
    expect(fourth.status).toBe(400);
    expect(fourth.body.error).toBe('slow_down');
    expect((await poll(rp, invented(), limited)).body.error).toBe('slow_down');
    // A code Redis knows is answered from its polling state, whatever the address spent on invented ones.
    expect((await pollOnTime(rp, known.device_code, limited)).body.error).toBe('authorization_pending');
  });

  it('another client polling a pending code gets invalid_grant on either replica and never slows its owner down', async () => {
    const rp = await kit.provisionRp(h, { authMethod: 'none', device: true });
    const other = await kit.provisionRp(h, { authMethod: 'none', device: true });
    const a = (await start(rp)).body;
    const row = await h.infra.db.deviceAuthorization.findFirstOrThrow({ where: { userCode: a.user_code } });
    const key = `${PREFIX}:poll:${row.deviceCodeHash}`;
    // Back to back, as fast as an attacker likes: each one refused, none of them read or moved the polling state.
    const answers = [];
    for (const on of [h, replica, h, replica])
      answers.push((await poll(other, a.device_code, on)).body.error);
    expect(answers).toEqual(['invalid_grant', 'invalid_grant', 'invalid_grant', 'invalid_grant']);
    expect(await h.deps.redis.hmget(key, 'i', 'l')).toEqual(['1', null]);
    // The owner's first poll is on time (pending, not slow_down), and the code is still its own to redeem.
    expect((await poll(rp, a.device_code)).body.error).toBe('authorization_pending');
    await decide(a.user_code, rp.accountId);
    expect((await poll(other, a.device_code, replica)).body.error).toBe('invalid_grant');
    expect((await pollOnTime(rp, a.device_code)).status).toBe(200);
  });

  it('a polling state seeded before owners were recorded is judged by PostgreSQL, untouched, and then records its owner', async () => {
    const rp = await kit.provisionRp(h, { authMethod: 'none', device: true });
    const other = await kit.provisionRp(h, { authMethod: 'none', device: true });
    const a = (await start(rp)).body;
    const row = await h.infra.db.deviceAuthorization.findFirstOrThrow({ where: { userCode: a.user_code } });
    const key = `${PREFIX}:poll:${row.deviceCodeHash}`;
    expect(await h.deps.redis.hdel(key, 'o')).toBe(1);
    expect((await poll(other, a.device_code)).body.error).toBe('invalid_grant');
    expect((await poll(other, a.device_code, replica)).body.error).toBe('invalid_grant');
    expect(await h.deps.redis.hmget(key, 'i', 'l', 'o')).toEqual(['1', null, null]);
    expect((await poll(rp, a.device_code)).body.error).toBe('authorization_pending');
    expect(await h.deps.redis.hget(key, 'o')).toBe(row.oidcClientId);
    expect((await poll(other, a.device_code)).body.error).toBe('invalid_grant');
  });

  it("starts are limited per address across replicas (the device host's limit): 429 slow_down, no row written", async () => {
    const rp = await kit.provisionRp(startLimited, { authMethod: 'none', device: true });
    const answers = [];
    for (const on of [startLimited, startLimitedReplica, startLimited, startLimitedReplica])
      answers.push(await start(rp, 'openid', on));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429]);
    const refused = answers[3]!;
    expect(refused.body.error).toBe('slow_down');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await start(rp, 'openid', startLimited)).status).toBe(429);
    const client = await startLimited.infra.db.oidcClient.findUniqueOrThrow({
      where: { clientId: rp.client.clientId },
    });
    expect(
      await startLimited.infra.db.deviceAuthorization.count({ where: { oidcClientId: client.id } }),
    ).toBe(3);
  });

  it('opt-in per client; a code of another client, the spec wire or nobody is invalid_grant', async () => {
    const plain = await kit.provisionRp(h, { authMethod: 'none' });
    const refused = await kit.postForm(
      h,
      { client_id: plain.client.clientId, scope: 'openid' },
      undefined,
      '/device-authorization',
    );
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('unauthorized_client');
    expect((await poll(plain, `odc_${randomBytes(32).toString('hex')}`)).body.error).toBe(
      'unauthorized_client',
    );

    const rp = await kit.provisionRp(h, { authMethod: 'none', device: true });
    const other = await kit.provisionRp(h, { authMethod: 'none', device: true });
    const a = (await start(rp)).body;
    await decide(a.user_code, rp.accountId);
    expect((await poll(other, a.device_code)).body.error).toBe('invalid_grant');
    for (const code of [
      `dvc_${randomBytes(32).toString('hex')}`,
      `odc_${randomBytes(32).toString('hex')}`,
      'x',
    ]) {
      expect((await poll(rp, code)).body.error).toBe('invalid_grant');
    }
    // Still redeemable by its own client.
    expect((await pollOnTime(rp, a.device_code)).status).toBe(200);
    expect((await start(rp, 'email')).body.error).toBe('invalid_scope');
  });
});
