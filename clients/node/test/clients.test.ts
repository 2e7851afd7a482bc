// Every client call of the package against the real hosts (connect, session, native, device): the wire each
// sends, the typed errors each throws, single-flight refresh, and the retries the spec allows, each with a freshly
// signed client-auth JWT or assertion.
import {
  createSigninClient,
  createVerifier,
  DeviceFlowError,
  type FetchLike,
  SigninApiError,
} from '@signin-service/node';
import { addClientKey, addRule, createAccessKey } from '@svc/provisioning';
import { provisionAccount, provisionApp, useStarted } from '@svc/testkit';
import { exportJWK, generateKeyPair } from 'jose';
import { realizeFor } from '../../../services/connect/test/helpers';
import type { DeviceDeps } from '../../../services/device/src/deps';
import { approve, type DeviceHarness } from '../../../services/device/test/support';
import {
  linkedTicket,
  publicKeyFor,
  type SteamStandIn,
  startSteamStandIn,
} from '../../../services/native/test/helpers';
import { startFleet } from './fleet';

let steam: SteamStandIn;
const fleet = useStarted(async () => {
  steam = await startSteamStandIn();
  const started = await startFleet({
    hosts: ['session', 'connect', 'native', 'device'],
    env: { DEVICE_POLL_INTERVAL_SECONDS: '1', STEAM_API_URL: steam.url, STEAM_API_KEY: 'test-publisher-key' },
  });
  return {
    ...started,
    async close() {
      await started.close();
      await steam.close();
    },
  };
});

/** A fetch that records each call's method and path. */
function recordingFetch(
  wrap?: (url: string, init: RequestInit, send: () => Promise<Response>) => Promise<Response>,
) {
  const calls: string[] = [];
  const f: FetchLike = (url, init) => {
    calls.push(`${init.method} ${new URL(url).pathname}`);
    const send = () => fetch(url, init);
    return wrap ? wrap(url, init, send) : send();
  };
  return { calls, fetch: f };
}

/** An application with passkey sign-in, the three return methods, access-key and public-key direct issue, and a client key. */
async function integrated(fetchImpl?: FetchLike) {
  const app = await provisionApp(fleet.infra, {
    methods: ['PASSKEY_USERNAMELESS', 'ACCESS_KEY_DIRECT', 'PUBLIC_KEY_DIRECT'],
    returnMethods: ['CALLBACK', 'STATUS_POLL', 'REVEAL', 'DEVICE_CODE'],
    callbackDomains: ['localhost'],
  });
  const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  const { kid } = await addClientKey(fleet.infra.provisioning, app.anchor, await exportJWK(publicKey));
  const clientKey = { ...(await exportJWK(privateKey)), kid };
  const account = await provisionAccount(fleet.infra, { givenName: 'Ada', familyName: 'Lovelace' });
  const client = createSigninClient({
    applicationAnchor: app.anchor,
    connectUrl: fleet.urls.connect,
    sessionUrl: fleet.urls.session,
    nativeUrl: fleet.urls.native,
    deviceUrl: fleet.urls.device,
    clientKey,
    fetch: fetchImpl,
  });
  const verifier = createVerifier({
    sessionUrl: fleet.urls.session,
    applicationAnchor: app.anchor,
    issuer: fleet.issuer,
  });
  return { app, account, client, verifier, clientKey };
}

async function errorOf(p: Promise<unknown>): Promise<SigninApiError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof SigninApiError)) throw new Error(`expected a SigninApiError, got ${String(err)}`);
  return err;
}

test('establish, inquiry status, redeem, info: a connect sign-in from inquiry to verified tokens', async () => {
  const { app, account, client, verifier } = await integrated();
  const callbackUrl = 'http://localhost:4180/callback?x=1';
  const inquiry = await client.establish({
    returnMethods: [{ type: 'CALLBACK', payload: { callbackUrl } }, { type: 'STATUS_POLL' }],
  });
  expect(inquiry.applicationAnchor).toBe(app.anchor);
  expect(inquiry.url).toBe(`${fleet.urls.connect}/inquiries/${inquiry.exposureKey}`);
  expect((await client.inquiryStatus(inquiry)).state).toBe('established');
  const notYet = await errorOf(client.redeem({ ...inquiry, confirmationKey: 'iqc_x' }));
  expect([notYet.status, notYet.reason]).toEqual([409, 'InquiryNotRealized']);
  const confirmationKey = await realizeFor(fleet.infra, inquiry.exposureKey, account.id);
  const status = await client.inquiryStatus(inquiry);
  expect(status).toMatchObject({ state: 'realized', confirmationKey });
  const tokens = await client.redeem({ ...inquiry, confirmationKey });
  expect(Object.keys(tokens.claims).sort()).toEqual([
    'animatedAvatar',
    'email',
    'firstName',
    'lastName',
    'staticAvatar',
  ]);
  expect((await verifier.verify(tokens.accessToken)).aud).toBe(app.anchor);
  const again = await errorOf(client.redeem({ ...inquiry, confirmationKey }));
  expect([again.status, again.reason]).toEqual([409, 'InquiryAlreadyRedeemed']);
  expect(await client.info('zh-CN')).toEqual({
    applicationAnchor: app.anchor,
    applicationName: `应用 ${app.anchor}`,
  });
});

test('establish signs a fresh client-auth JWT per call, over the exact body; a wrong key is a status-only 401', async () => {
  const { app, client } = await integrated();
  const one = await client.establish({ returnMethods: [{ type: 'STATUS_POLL' }] });
  const two = await client.establish({ returnMethods: [{ type: 'STATUS_POLL' }] });
  expect(one.exposureKey).not.toBe(two.exposureKey);
  const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  const stranger = createSigninClient({
    applicationAnchor: app.anchor,
    connectUrl: fleet.urls.connect,
    clientKey: { ...(await exportJWK(privateKey)), kid: 'cak_not_registered' },
  });
  const refused = await errorOf(stranger.establish());
  expect([refused.status, refused.reason, refused.error]).toEqual([401, undefined, undefined]);
});

test('refresh: concurrent callers of one token share one rotation and all get the new pair', async () => {
  const rec = recordingFetch();
  const { account, client, app } = await integrated(rec.fetch);
  const issued = await client.directIssueAccessKey(
    await createAccessKey(fleet.infra.provisioning, { anchor: app.anchor, accountId: account.id }),
  );
  const pairs = await Promise.all(Array.from({ length: 8 }, () => client.refresh(issued.refreshToken)));
  expect(new Set(pairs.map((p) => p.refreshToken)).size).toBe(1);
  expect(pairs[0]!.refreshToken).not.toBe(issued.refreshToken);
  expect(rec.calls.filter((c) => c === 'POST /refresh')).toHaveLength(1);
  // A caller arriving just after, with the old token, gets the same pair without spending anything.
  expect((await client.refresh(issued.refreshToken)).accessToken).toBe(pairs[0]!.accessToken);
  expect(rec.calls.filter((c) => c === 'POST /refresh')).toHaveLength(1);
  // The new pair is current: it rotates, and the session stays active.
  const next = await client.refresh(pairs[0]!.refreshToken);
  expect((await client.introspect(next.accessToken)).status).toBe('active');
});

test('refresh: a lost answer is retried at once with the same token, and the host hands back the same pair', async () => {
  let lost = false;
  const rec = recordingFetch(async (url, _init, send) => {
    const res = await send();
    if (!lost && url.endsWith('/refresh')) {
      lost = true;
      throw new TypeError('socket hang up');
    }
    return res;
  });
  const { account, client, app } = await integrated(rec.fetch);
  const issued = await client.directIssueAccessKey(
    await createAccessKey(fleet.infra.provisioning, { anchor: app.anchor, accountId: account.id }),
  );
  const pair = await client.refresh(issued.refreshToken);
  expect(rec.calls.filter((c) => c === 'POST /refresh')).toHaveLength(2);
  expect((await client.introspect(pair.accessToken)).status).toBe('active');
});

test('refresh failures are typed with the spec reason', async () => {
  const { account, client, app } = await integrated();
  const issued = await client.directIssueAccessKey(
    await createAccessKey(fleet.infra.provisioning, { anchor: app.anchor, accountId: account.id }),
  );
  const malformed = await errorOf(client.refresh('not-a-token'));
  expect([malformed.status, malformed.reason]).toEqual([401, 'RefreshTokenInvalid']);
  const typ = await errorOf(client.refresh(issued.accessToken));
  expect([typ.status, typ.reason]).toEqual([401, 'RefreshTokenInvalidType']);
});

test('logout, introspect, userinfo, claim-state, errand', async () => {
  const { account, client, app } = await integrated();
  const issued = await client.directIssueAccessKey(
    await createAccessKey(fleet.infra.provisioning, { anchor: app.anchor, accountId: account.id }),
  );
  const introspected = await client.introspect(issued.accessToken);
  expect(introspected.status).toBe('active');
  expect(introspected.recommendedRecheckSeconds).toBeGreaterThan(0);
  const info = await client.userinfo(issued.accessToken);
  expect(info.sub).toEqual(expect.any(String));
  const state = await client.claimState(issued.accessToken);
  expect(state.sub).toBe(info.sub);
  expect(Object.keys(state.claims).sort().join(' ')).toBe(
    'email family_name given_name picture picture_animated',
  );
  expect(await client.errand(issued.accessToken)).toMatchObject({ errand: null });
  const bearer = await errorOf(client.userinfo('not-a-token'));
  expect([bearer.status, bearer.error]).toEqual([401, 'invalid_token']);
  expect(await client.logout(issued.refreshToken)).toEqual({ revoked: true });
  expect(await client.logout(issued.refreshToken)).toEqual({ revoked: true });
  expect((await client.introspect(issued.accessToken)).status).toBe('revoked');
  const afterLogout = await errorOf(client.refresh(issued.refreshToken));
  expect(afterLogout.reason).toBe('RefreshTokenRevoked');
  const errand = await errorOf(client.errand(issued.accessToken));
  expect(errand.status).toBe(401);
});

test('revoke-all: a retry after a lost answer signs a fresh client-auth JWT and is not refused as a replay', async () => {
  let lost = false;
  const seen: string[] = [];
  const rec = recordingFetch(async (url, init, send) => {
    if (url.endsWith('/revoke-all'))
      seen.push(String((init.headers as Record<string, string>).authorization));
    const res = await send();
    if (!lost && url.endsWith('/revoke-all')) {
      lost = true;
      throw new TypeError('socket hang up');
    }
    return res;
  });
  const { account, client, app, verifier } = await integrated(rec.fetch);
  const issued = await client.directIssueAccessKey(
    await createAccessKey(fleet.infra.provisioning, { anchor: app.anchor, accountId: account.id }),
  );
  const { sub } = await verifier.verify(issued.accessToken);
  expect(await client.revokeAll(sub)).toEqual({ revoked: true });
  expect(seen).toHaveLength(2);
  expect(seen[0]).not.toBe(seen[1]);
  expect((await client.introspect(issued.accessToken)).status).toBe('revoked');
});

test('direct issue: access key, public key (a replayed assertion retried with a fresh one), platform ticket', async () => {
  // Each public-key request is sent twice with the same assertion; the second answer (a replay) is what the client sees.
  let replays = 0;
  const rec = recordingFetch(async (url, init, send) => {
    if (!url.endsWith('/direct-issue/public-key') || replays > 0) return send();
    replays += 1;
    await send();
    return fetch(url, init);
  });
  const { account, client, app, verifier } = await integrated(rec.fetch);
  const byKey = await client.directIssueAccessKey(
    await createAccessKey(fleet.infra.provisioning, { anchor: app.anchor, accountId: account.id }),
  );
  expect((await verifier.verify(byKey.accessToken)).kind).toBe('account');
  const denied = await errorOf(
    client.directIssueAccessKey({
      accessKeyIdentifier: `acs_k_${crypto.randomUUID()}`,
      accessKeySecret: `acs_t_${'0'.repeat(64)}`,
    }),
  );
  expect([denied.status, denied.reason]).toEqual([401, 'AccessKeyDirectDenied']);

  const cred = await publicKeyFor(fleet.infra, app.anchor, account.id);
  const byPublicKey = await client.directIssuePublicKey({ key: cred.key, kid: cred.kid });
  expect(byPublicKey.applicationAnchor).toBe(app.anchor);
  // The client's first attempt (sent twice, answered as a replay) and its retry under a fresh assertion.
  expect(replays).toBe(1);
  expect(rec.calls.filter((c) => c === 'POST /direct-issue/public-key')).toHaveLength(2);

  await addRule(fleet.infra.provisioning, app.anchor, { method: 'PLATFORM_TICKET', platformAppIds: [480n] });
  const ticket = await linkedTicket({ infra: fleet.infra, steam }, account.id);
  const byTicket = await client.directIssuePlatformTicket({ platformTicketHex: ticket, platformAppId: 480 });
  expect((await verifier.verify(byTicket.accessToken)).sub).toBe(
    (await verifier.verify(byKey.accessToken)).sub,
  );
  const replayed = await errorOf(
    client.directIssuePlatformTicket({ platformTicketHex: ticket, platformAppId: 480 }),
  );
  expect([replayed.status, replayed.reason]).toEqual([409, 'ReplayProtectionAlreadySeen']);
});

test('device flow: the person approves while the client polls; cancelling stops it at once', async () => {
  const { account, client, verifier } = await integrated();
  const harness = {
    deps: fleet.deps.device as DeviceDeps,
    infra: fleet.infra,
    clock: Date.now,
  } as unknown as DeviceHarness;
  const tokens = await client.deviceLogin({
    onCode: async (authorization) => {
      expect(authorization.verificationUriComplete).toContain(authorization.userCode);
      setTimeout(() => void approve(harness, authorization.userCode, account.id), 1500);
    },
  });
  expect((await verifier.verify(tokens.accessToken)).kind).toBe('account');

  const stop = new AbortController();
  const cancelled = client.deviceLogin({
    signal: stop.signal,
    onCode: () => void setTimeout(() => stop.abort(), 200),
  });
  await expect(cancelled).rejects.toBeInstanceOf(DeviceFlowError);
  await expect(cancelled).rejects.toMatchObject({ error: 'aborted' });
});

test('device flow: server_error, access_denied and expired_token are terminal; slow_down raises the interval', async () => {
  const answers: [number, unknown][] = [
    [400, { error: 'authorization_pending' }],
    [400, { error: 'slow_down', interval: 7 }],
    [500, { error: 'server_error' }],
  ];
  const waits: number[] = [];
  const standIn: FetchLike = async (url) =>
    url.endsWith('/device-authorize')
      ? Response.json({
          applicationAnchor: 'an-app',
          deviceCode: `dvc_${'1'.repeat(64)}`,
          userCode: 'BCDF-GHJK',
          verificationUri: 'http://localhost:4104/device',
          verificationUriComplete: 'http://localhost:4104/device?user_code=BCDF-GHJK',
          expiresIn: 600,
          interval: 2,
        })
      : Response.json(answers[0]![1], { status: answers.shift()![0] });
  const client = createSigninClient({
    applicationAnchor: 'an-app',
    deviceUrl: 'http://device.test',
    fetch: standIn,
  });
  const ended = client.deviceLogin({ onCode: () => undefined, sleep: async (ms) => void waits.push(ms) });
  await expect(ended).rejects.toMatchObject({ error: 'server_error' });
  expect(waits).toEqual([2000, 2000, 7000]);
  expect(answers).toEqual([]);
});

test('device flow against the host: a DEVICE_CODE-less application is a typed Layer3Denied', async () => {
  const app = await provisionApp(fleet.infra, { methods: ['PASSKEY_USERNAMELESS'] });
  const client = createSigninClient({ applicationAnchor: app.anchor, deviceUrl: fleet.urls.device });
  const refused = await errorOf(client.deviceAuthorize());
  expect([refused.status, refused.reason]).toEqual([403, 'Layer3Denied']);
  const unknown = createSigninClient({ applicationAnchor: 'no-such-app-x', deviceUrl: fleet.urls.device });
  expect((await errorOf(unknown.deviceAuthorize())).reason).toBe('ApplicationNotFound');
});
