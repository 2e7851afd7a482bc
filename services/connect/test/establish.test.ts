// POST /establish over HTTP: client-auth binding, every constraint rule, callback URLs, limits, application state.
import { randomBytes } from 'node:crypto';
import { setAppStatus, setOrgStatus, setSectorStatus } from '@svc/provisioning';
import { type Backend, postJson, provisionBackend, provisionClientKey, signClientAuth } from '@svc/testkit';
import { AUDIENCE } from '@svc/token-core';
import { sha256Hex } from '../src/domain/keys';
import { useConnectHost } from './helpers';

const cx = useConnectHost();

let backend: Backend;

beforeAll(async () => {
  backend = await provisionBackend(cx.infra, cx.host.url);
});
const passkey = { method: 'PASSKEY_USERNAMELESS', payload: {} };
const emails = (allowedEmails: unknown) => ({ constraintType: 'EMAIL', payload: { allowedEmails } });
const callback = (callbackUrl: string) => ({ type: 'CALLBACK', payload: { callbackUrl } });

describe('POST /establish', () => {
  test('returns the anchor and two fresh keys, stored only as hashes', async () => {
    const res = await backend.establish({
      authenticationConstraints: [passkey],
      returnMethods: [{ type: 'STATUS_POLL' }],
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(Object.keys(res.body).sort()).toEqual(['applicationAnchor', 'exposureKey', 'hiddenKey']);
    expect(res.body.applicationAnchor).toBe(backend.fixture.anchor);
    expect(res.body.exposureKey).toMatch(/^iqe_[A-Za-z0-9_-]{43}$/);
    expect(res.body.hiddenKey).toMatch(/^iqh_[A-Za-z0-9_-]{43}$/);
    const row = await cx.infra.db.inquiry.findUnique({
      where: { exposureKeyHash: sha256Hex(res.body.exposureKey) },
    });
    expect(row?.hiddenKeyHash).toBe(sha256Hex(res.body.hiddenKey));
    expect(row?.state).toBe('ESTABLISHED');
    expect(JSON.stringify(row)).not.toContain(res.body.hiddenKey);
  });

  test('a body with no arrays is accepted (no narrowing)', async () => {
    const res = await backend.establish({});
    expect(res.status).toBe(200);
  });

  test('client-auth: missing, replayed, wrong audience, other bytes and another application are bare 401s', async () => {
    const text = JSON.stringify({ applicationAnchor: backend.fixture.anchor });
    const missing = await postJson(`${cx.host.url}/establish`, text);
    expect(missing.status).toBe(401);
    expect(missing.text).toBe('');
    const { kid, key } = await provisionClientKey(cx.infra, backend.fixture.anchor);
    const jws = await signClientAuth({
      key,
      kid,
      iss: backend.fixture.anchor,
      aud: AUDIENCE.connect,
      body: text,
    });
    expect(
      (await postJson(`${cx.host.url}/establish`, text, { authorization: `ClientAuth ${jws}` })).status,
    ).toBe(200);
    const replay = await postJson(`${cx.host.url}/establish`, text, { authorization: `ClientAuth ${jws}` });
    expect(replay.status).toBe(401);
    const wrongAud = await signClientAuth({
      key,
      kid,
      iss: backend.fixture.anchor,
      aud: AUDIENCE.session,
      body: text,
    });
    expect(
      (await postJson(`${cx.host.url}/establish`, text, { authorization: `ClientAuth ${wrongAud}` })).status,
    ).toBe(401);
    const other = await signClientAuth({
      key,
      kid,
      iss: backend.fixture.anchor,
      aud: AUDIENCE.connect,
      body: text,
    });
    const tampered = `${text} `;
    expect(
      (await postJson(`${cx.host.url}/establish`, tampered, { authorization: `ClientAuth ${other}` })).status,
    ).toBe(401);
    // Signed correctly by this application's key, but for another anchor in the body.
    const foreign = JSON.stringify({ applicationAnchor: 'some-other-app' });
    const f = await signClientAuth({
      key,
      kid,
      iss: backend.fixture.anchor,
      aud: AUDIENCE.connect,
      body: foreign,
    });
    const res = await postJson(`${cx.host.url}/establish`, foreign, { authorization: `ClientAuth ${f}` });
    expect(res.status).toBe(401);
    expect(res.text).toBe('');
  });

  test('client-auth: a jti under 128 bits (fewer than 22 base64url characters) is a bare 401', async () => {
    const text = JSON.stringify({ applicationAnchor: backend.fixture.anchor });
    const { kid, key } = await provisionClientKey(cx.infra, backend.fixture.anchor);
    const sign = (jti: string) =>
      signClientAuth({ key, kid, iss: backend.fixture.anchor, aud: AUDIENCE.connect, body: text, jti });
    const post = async (jti: string) =>
      postJson(`${cx.host.url}/establish`, text, { authorization: `ClientAuth ${await sign(jti)}` });
    const short = await post(randomBytes(12).toString('base64url'));
    expect([short.status, short.text]).toEqual([401, '']);
    expect((await post(randomBytes(16).toString('base64url').slice(0, 21))).status).toBe(401);
    expect((await post(randomBytes(16).toString('base64url'))).status).toBe(200);
  });

  test.each([
    ['empty authenticationConstraints', { authenticationConstraints: [] }],
    ['17 authenticationConstraints', { authenticationConstraints: Array(17).fill(passkey) }],
    ['unknown method', { authenticationConstraints: [{ method: 'PASSWORD', payload: {} }] }],
    ['non-empty passkey payload', { authenticationConstraints: [{ ...passkey, payload: { x: 1 } }] }],
    ['access TTL below 60', { authenticationConstraints: [{ ...passkey, accessTokenTtlSeconds: 59 }] }],
    [
      'access TTL above 7 days',
      { authenticationConstraints: [{ ...passkey, accessTokenTtlSeconds: 604_801 }] },
    ],
    [
      'refresh TTL below 1 day',
      { authenticationConstraints: [{ ...passkey, refreshTokenTtlSeconds: 86_399 }] },
    ],
    [
      'refresh TTL above 365 days',
      { realizeConstraints: [{ ...emails(['a@b.c']), refreshTokenTtlSeconds: 31_536_001 }] },
    ],
    ['fractional TTL', { authenticationConstraints: [{ ...passkey, accessTokenTtlSeconds: 60.5 }] }],
    ['empty realizeConstraints', { realizeConstraints: [] }],
    ['17 realizeConstraints', { realizeConstraints: Array(17).fill(emails(['a@b.c'])) }],
    [
      'unknown constraintType',
      { realizeConstraints: [{ constraintType: 'PHONE', payload: { allowedEmails: ['a@b.c'] } }] },
    ],
    ['empty allowedEmails', { realizeConstraints: [emails([])] }],
    [
      '129 allowedEmails',
      { realizeConstraints: [emails(Array.from({ length: 129 }, (_, i) => `u${i}@x.test`))] },
    ],
    ['duplicate allowedEmails', { realizeConstraints: [emails(['a@b.c', 'A@B.C'])] }],
    ['allowedEmails not an address', { realizeConstraints: [emails(['not an address'])] }],
    ['empty returnMethods', { returnMethods: [] }],
    [
      '4 returnMethods',
      {
        returnMethods: [{ type: 'REVEAL' }, { type: 'REVEAL' }, { type: 'STATUS_POLL' }, { type: 'REVEAL' }],
      },
    ],
    ['duplicate return types', { returnMethods: [{ type: 'REVEAL' }, { type: 'REVEAL' }] }],
    ['DEVICE_CODE return type', { returnMethods: [{ type: 'DEVICE_CODE' }] }],
    ['CALLBACK without a URL', { returnMethods: [{ type: 'CALLBACK', payload: {} }] }],
    ['unknown top-level member', { extra: true }],
    [
      'callback with a key template',
      { returnMethods: [callback('https://app.example.test/cb?k={exposureKey}')] },
    ],
    [
      'callback with an encoded template',
      { returnMethods: [callback('https://app.example.test/cb?k=%7BexposureKey%7D')] },
    ],
    ['callback over plain HTTP', { returnMethods: [callback('http://app.example.test/cb')] }],
    ['callback on a foreign host', { returnMethods: [callback('https://evil.example.test/cb')] }],
    [
      'callback with a look-alike host',
      { returnMethods: [callback('https://app.example.test.evil.test/cb')] },
    ],
    ['callback with credentials', { returnMethods: [callback('https://user:pw@app.example.test/cb')] }],
    ['callback relative', { returnMethods: [callback('/cb')] }],
    [
      'callback over 2048 bytes',
      { returnMethods: [callback(`https://app.example.test/${'é'.repeat(1013)}`)] },
    ],
  ])('400 InvalidBody: %s', async (_name, body) => {
    const res = await backend.establish(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ reason: 'InvalidBody' });
  });

  test('callback URLs that follow the rules are accepted (HTTPS, loopback HTTP, exactly 2048 bytes)', async () => {
    for (const url of [
      'https://app.example.test/cb?state=1#frag',
      'http://localhost:8080/cb',
      `https://app.example.test/${'a'.repeat(2048 - 'https://app.example.test/'.length)}`,
    ]) {
      const res = await backend.establish({ returnMethods: [callback(url)] });
      expect(res.status).toBe(200);
    }
  });

  test('the three arrays together are limited to 65,536 bytes', async () => {
    // 16 constraints of 128 long patterns each: well past the limit while every item is individually valid.
    const many = Array.from({ length: 16 }, (_, c) =>
      emails(Array.from({ length: 128 }, (_, i) => `${'x'.repeat(20)}${c}-${i}@example.test`)),
    );
    const res = await backend.establish({ realizeConstraints: many });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ reason: 'InvalidBody' });
    const fits = await backend.establish({ realizeConstraints: many.slice(0, 4) });
    expect(fits.status).toBe(200);
  });

  test('the application must enable usernameless passkeys and every requested return method', async () => {
    const bare = await provisionBackend(cx.infra, cx.host.url, {
      methods: [],
      returnMethods: ['STATUS_POLL'],
    });
    const l1 = await bare.establish({});
    expect(l1.status).toBe(403);
    expect(l1.body).toEqual({ reason: 'Layer1Denied' });
    const pollOnly = await provisionBackend(cx.infra, cx.host.url, { returnMethods: ['STATUS_POLL'] });
    expect((await pollOnly.establish({ returnMethods: [{ type: 'REVEAL' }] })).body).toEqual({
      reason: 'Layer3Denied',
    });
    expect((await pollOnly.establish({ returnMethods: [{ type: 'STATUS_POLL' }] })).status).toBe(200);
    const callbackOnly = await provisionBackend(cx.infra, cx.host.url, { returnMethods: ['CALLBACK'] });
    // Without returnMethods there is no URL, and CALLBACK is the only method: nothing is left.
    expect((await callbackOnly.establish({})).body).toEqual({ reason: 'Layer3Denied' });
  });

  test('ApplicationNotActive when the application, its sector or its organization is unavailable', async () => {
    for (const disable of ['app', 'sector', 'org'] as const) {
      const b = await provisionBackend(cx.infra, cx.host.url);
      if (disable === 'app') await setAppStatus(cx.infra.provisioning, b.fixture.anchor, 'SUSPENDED');
      if (disable === 'sector') await setSectorStatus(cx.infra.provisioning, b.fixture.sectorId, 'DISABLED');
      if (disable === 'org') await setOrgStatus(cx.infra.provisioning, b.fixture.orgId, 'DISABLED');
      const res = await b.establish({});
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ reason: 'ApplicationNotActive' });
    }
  });

  test('TTL overrides and the effective return methods are recorded on the inquiry', async () => {
    const res = await backend.establish({
      authenticationConstraints: [{ ...passkey, accessTokenTtlSeconds: 600 }],
      realizeConstraints: [{ ...emails(['*@example.test']), refreshTokenTtlSeconds: 86_400 }],
      returnMethods: [callback('https://app.example.test/cb'), { type: 'REVEAL' }],
    });
    const row = await cx.infra.db.inquiry.findUniqueOrThrow({
      where: { exposureKeyHash: sha256Hex(res.body.exposureKey) },
    });
    expect(row.constraints).toMatchObject({
      returnMethods: ['CALLBACK', 'REVEAL'],
      callbackUrl: 'https://app.example.test/cb',
      ttlLayers: [{ accessTokenTtlSeconds: 600 }, { refreshTokenTtlSeconds: 86_400 }],
    });
  });
});
