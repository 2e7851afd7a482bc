// POST /direct-issue/public-key, black-box over HTTP: the exact assertion contract, opaque denials, replay (also
// at the same moment across two replicas), layers per principal kind, and workload tokens.
import { randomBytes } from 'node:crypto';
import { addReturnRule } from '@svc/provisioning';
import { postJson, provisionApp } from '@svc/testkit';
import { TYP } from '@svc/token-core';
import { createLocalJWKSet, generateKeyPair, jwtVerify } from 'jose';
import {
  type AssertionOptions,
  type Kind,
  publicKeyFixture,
  publicKeyFor,
  sendPublicKey,
  sessionCount,
  settledAccount,
  signAssertion,
  useNativeHost,
} from './helpers';

const n = useNativeHost({ replicas: 1 });

const ALL = ['PUBLIC_KEY_DIRECT', 'AGENT_PUBLIC_KEY_DIRECT', 'AUTOMATION_PUBLIC_KEY_DIRECT'];

const fixture = (methods = ALL, kind: Kind = 'ACCOUNT') => publicKeyFixture(n.infra, { methods, kind });
const send = sendPublicKey;

describe('success', () => {
  test.each([
    ['ACCOUNT', TYP.accountAccess],
    ['AGENT', TYP.workloadAccess],
    ['AUTOMATION', TYP.workloadAccess],
  ] as const)('a %s key issues a %s token', async (kind, typ) => {
    const f = await fixture(ALL, kind);
    const res = await send(n.host, f);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body.applicationAnchor).toBe(f.app.anchor);
    const { keys } = await n.infra.keyRing.jwks(f.app.applicationId);
    const { payload } = await jwtVerify(res.body.accessToken, createLocalJWKSet({ keys: keys as never }), {
      algorithms: ['RS256'],
      audience: f.app.anchor,
      typ,
    });
    if (kind === 'ACCOUNT') expect(payload.act).toBeUndefined();
    else expect(Object.keys(payload.act as object)).toEqual(['sub']);
  });
});

describe('every assertion defect is the same PublicKeyDirectDenied', () => {
  const cases: [string, AssertionOptions][] = [
    ['iss other than kid', { iss: 'pky_somebodyelse' }],
    ['wrong aud', { aud: 'service-connect' }],
    ['wrong typ', { typ: 'vnd.service.client-auth+jwt' }],
    ['an extra header member', { extraHeader: { cty: 'JWT' } }],
    ['an extra claim', { extraClaims: { sub: 'me' } }],
    ['a missing jti', { omitClaim: 'jti' }],
    ['a missing requestHash', { omitClaim: 'requestHash' }],
    ['a lifetime over 60 s', { lifetimeSeconds: 61 }],
    ['an expired assertion', { iatOffsetSeconds: -120 }],
    ['an iat in the future', { iatOffsetSeconds: 120 }],
    ['a requestHash of other bytes', { requestHash: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }],
    ['a too-short jti', { jti: 'abc' }],
    // 96 bits (16 base64url characters) and 21 characters both fall short of the spec's 128-bit jti.
    ['a 96-bit jti', { jti: randomBytes(12).toString('base64url') }],
    ['a 21-character jti', { jti: randomBytes(16).toString('base64url').slice(0, 21) }],
    ['a jti that is not base64url', { jti: `${randomBytes(16).toString('base64url')}=` }],
  ];
  test.each(cases)('%s', async (_name, o) => {
    const f = await fixture();
    const res = await send(n.host, f, o);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ reason: 'PublicKeyDirectDenied' });
    expect(res.headers.get('www-authenticate')).toContain('PublicKey');
    expect(await sessionCount(n.infra, f.account.id)).toBe(0);
  });

  test('the body differing from the signed bytes (same JSON, other spacing)', async () => {
    const f = await fixture();
    const res = await send(n.host, f, {}, JSON.stringify({ applicationAnchor: f.app.anchor }, null, 1));
    expect(res.body).toEqual({ reason: 'PublicKeyDirectDenied' });
  });

  test('missing header, other scheme, garbage, unknown kid, wrong signer, revoked key, other application', async () => {
    const f = await fixture();
    const other = await provisionApp(n.infra, { methods: ALL });
    const otherCred = await publicKeyFor(n.infra, other.anchor, f.account.id);
    const revoked = await publicKeyFor(n.infra, f.app.anchor, f.account.id);
    await n.infra.db.publicKey.update({ where: { kid: revoked.kid }, data: { status: 'REVOKED' } });
    const stranger = (await generateKeyPair('EdDSA', { crv: 'Ed25519' })).privateKey;
    const good = await signAssertion(f.cred.key, f.cred.kid, f.body);
    const headers: (Record<string, string> | undefined)[] = [
      undefined,
      { authorization: `Bearer ${good}` },
      { authorization: 'PublicKey not.a.jws' },
      { authorization: 'PublicKey' },
      { authorization: `PublicKey ${'x'.repeat(5000)}` },
      { authorization: `PublicKey ${await signAssertion(f.cred.key, 'pky_doesnotexist00000000', f.body)}` },
      { authorization: `PublicKey ${await signAssertion(stranger, f.cred.kid, f.body)}` },
      { authorization: `PublicKey ${await signAssertion(revoked.key, revoked.kid, f.body)}` },
      { authorization: `PublicKey ${await signAssertion(otherCred.key, otherCred.kid, f.body)}` },
    ];
    for (const h of headers) {
      const res = await postJson(`${n.host.url}/direct-issue/public-key`, f.body, h ?? {});
      expect(res.status).toBe(401);
      expect(res.text).toBe('{"reason":"PublicKeyDirectDenied"}');
    }
    expect(await sessionCount(n.infra, f.account.id)).toBe(0);
  });
});

describe('single use', () => {
  test('the same assertion twice is PublicKeyAssertionReplayed (409); a fresh one succeeds', async () => {
    const f = await fixture();
    const jws = await signAssertion(f.cred.key, f.cred.kid, f.body);
    const first = await postJson(`${n.host.url}/direct-issue/public-key`, f.body, {
      authorization: `PublicKey ${jws}`,
    });
    const second = await postJson(`${n.replica.url}/direct-issue/public-key`, f.body, {
      authorization: `PublicKey ${jws}`,
    });
    expect(first.status).toBe(200);
    expect(second.status).toBe(409);
    expect(second.body).toEqual({ reason: 'PublicKeyAssertionReplayed' });
    expect((await send(n.replica, f)).status).toBe(200);
  });

  test('sent at the same moment to two replicas, exactly one succeeds', async () => {
    for (let round = 0; round < 3; round++) {
      const f = await fixture();
      const jws = await signAssertion(f.cred.key, f.cred.kid, f.body);
      const h = { authorization: `PublicKey ${jws}` };
      const results = await Promise.all([
        postJson(`${n.host.url}/direct-issue/public-key`, f.body, h),
        postJson(`${n.replica.url}/direct-issue/public-key`, f.body, h),
        postJson(`${n.host.url}/direct-issue/public-key`, f.body, h),
        postJson(`${n.replica.url}/direct-issue/public-key`, f.body, h),
      ]);
      const statuses = results.map((r) => r.status).sort();
      expect(statuses).toEqual([200, 409, 409, 409]);
      expect(await sessionCount(n.infra, f.account.id)).toBe(1);
    }
  });
});

describe('layers and anchors', () => {
  test.each([
    ['ACCOUNT', ['AGENT_PUBLIC_KEY_DIRECT', 'AUTOMATION_PUBLIC_KEY_DIRECT', 'ACCESS_KEY_DIRECT']],
    ['AGENT', ['PUBLIC_KEY_DIRECT', 'AUTOMATION_PUBLIC_KEY_DIRECT', 'AGENT_ACCESS_KEY_DIRECT']],
    ['AUTOMATION', ['PUBLIC_KEY_DIRECT', 'AGENT_PUBLIC_KEY_DIRECT', 'AUTOMATION_ACCESS_KEY_DIRECT']],
  ] as const)('Layer 1: a %s key is admitted only by its exact method', async (kind, methods) => {
    const f = await fixture([...methods], kind);
    const res = await send(n.host, f);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ reason: 'Layer1Denied' });
  });

  test('Layer 2: an agent owned by someone else now is refused', async () => {
    const f = await fixture(ALL, 'AGENT');
    const other = await settledAccount(n.infra);
    await n.infra.db.workload.update({
      where: { id: f.cred.workloadId! },
      data: { ownerAccountId: other.id },
    });
    const res = await send(n.host, f);
    expect(res.body).toEqual({ reason: 'Layer2Denied' });
  });

  test('Layer 3 never refuses direct issue: an app with only a DEVICE_CODE return rule issues', async () => {
    const f = await fixture();
    await addReturnRule(n.infra.provisioning, f.app.anchor, 'DEVICE_CODE');
    expect((await send(n.host, f)).status).toBe(200);
  });

  test('an unknown anchor is ApplicationNotFound; a bad body is InvalidBody', async () => {
    const f = await fixture();
    const unknown = JSON.stringify({ applicationAnchor: 'no-such-anchor-here' });
    const jws = await signAssertion(f.cred.key, f.cred.kid, unknown);
    const res = await postJson(`${n.host.url}/direct-issue/public-key`, unknown, {
      authorization: `PublicKey ${jws}`,
    });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ reason: 'ApplicationNotFound' });
    for (const bad of [
      '{}',
      '{"applicationAnchor":7}',
      `{"applicationAnchor":"${f.app.anchor}","x":1}`,
      '{"applicationAnchor"',
    ]) {
      const jwsBad = await signAssertion(f.cred.key, f.cred.kid, bad);
      const r = await postJson(`${n.host.url}/direct-issue/public-key`, bad, {
        authorization: `PublicKey ${jwsBad}`,
      });
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ reason: 'InvalidBody' });
    }
    expect(await sessionCount(n.infra, f.account.id)).toBe(0);
  });
});
