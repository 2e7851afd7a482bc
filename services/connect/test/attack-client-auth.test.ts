// Attacks on the client-auth JWT of /establish (CONTRACTS.md): lifetime and clock-skew edges on the host's clock,
// one assertion replayed at the same moment on two replicas, another application's key, and duplicate JSON members
// in the signed body (the body reader keeps the last; the signature covers the bytes, so nothing is smuggled), and
// a replica whose clock lags the others'.
import { createHash, randomBytes } from 'node:crypto';
import { postJson, provisionBackend, provisionClientKey, settableClock, waitUntil } from '@svc/testkit';
import { AUDIENCE } from '@svc/token-core';
import { type CryptoKey, SignJWT } from 'jose';
import { startConnect, useConnectHost } from './helpers';

// Whole seconds, so the edges below fall exactly on the host's clock.
const clock = settableClock(Math.floor(Date.now() / 1000) * 1000);
const cx = useConnectHost({ clock, replicas: 1 });
const T = () => Math.floor(clock() / 1000);
const sha256B64url = (body: string) => createHash('sha256').update(body).digest('base64url');

async function assertion(
  client: { kid: string; key: CryptoKey },
  o: { iss: string; body: string; iat: number; exp: number },
): Promise<string> {
  return new SignJWT({ requestHash: sha256B64url(o.body) })
    .setProtectedHeader({ alg: 'EdDSA', typ: 'vnd.service.client-auth+jwt', kid: client.kid })
    .setIssuer(o.iss)
    .setAudience(AUDIENCE.connect)
    .setIssuedAt(o.iat)
    .setExpirationTime(o.exp)
    .setJti(randomBytes(16).toString('base64url'))
    .sign(client.key);
}

async function backendWithKey() {
  const backend = await provisionBackend(cx.infra, cx.host.url);
  const client = await provisionClientKey(cx.infra, backend.fixture.anchor);
  return { anchor: backend.fixture.anchor, applicationId: backend.fixture.applicationId, client };
}

const establish = (url: string, body: string, jws: string) =>
  postJson(`${url}/establish`, body, { authorization: `ClientAuth ${jws}` });

describe('lifetime and clock skew, judged on the host clock', () => {
  test.each([
    ['a 60 s lifetime', 0, 60, 200],
    ['a 61 s lifetime', 0, 61, 401],
    ['exp equal to iat', 0, 0, 401],
    ['exp before iat', 0, -1, 401],
    ['iat 5 s ahead (the tolerated skew)', 5, 65, 200],
    ['iat 6 s ahead', 6, 66, 401],
    ['exp 4 s past', -59, -4, 200],
    ['exp 5 s past (skew spent)', -60, -5, 401],
  ])('%s', async (_name, iatOffset, expOffset, status) => {
    const b = await backendWithKey();
    const body = JSON.stringify({ applicationAnchor: b.anchor });
    const jws = await assertion(b.client, {
      iss: b.anchor,
      body,
      iat: T() + iatOffset,
      exp: T() + expOffset,
    });
    const res = await establish(cx.host.url, body, jws);
    expect(res.status).toBe(status);
    if (status === 401) expect(res.text).toBe('');
  });
});

describe('replay and keys', () => {
  test('one assertion sent eight times to each of two replicas at once: one inquiry, fifteen bare 401s', async () => {
    const b = await backendWithKey();
    const body = JSON.stringify({ applicationAnchor: b.anchor });
    const jws = await assertion(b.client, { iss: b.anchor, body, iat: T(), exp: T() + 60 });
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, i) => establish((i % 2 ? cx.replica : cx.host).url, body, jws)),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([200, ...Array(15).fill(401)]);
    expect(await cx.infra.db.inquiry.count({ where: { applicationId: b.applicationId } })).toBe(1);
  });

  test("another application's registered key, naming this application as iss, opens nothing", async () => {
    const victim = await backendWithKey();
    const attacker = await backendWithKey();
    const body = JSON.stringify({ applicationAnchor: victim.anchor });
    const jws = await assertion(attacker.client, { iss: victim.anchor, body, iat: T(), exp: T() + 60 });
    const res = await establish(cx.host.url, body, jws);
    expect([res.status, res.text]).toEqual([401, '']);
    expect(await cx.infra.db.inquiry.count({ where: { applicationId: victim.applicationId } })).toBe(0);
  });
});

describe('duplicate JSON members in the signed body', () => {
  test('the last applicationAnchor is the one read: it must be the signer’s, whatever comes first', async () => {
    const victim = await backendWithKey();
    const attacker = await backendWithKey();
    // The victim's anchor last: read as the victim's inquiry, signed by the attacker: refused, nothing opened.
    const smuggled = `{"applicationAnchor":${JSON.stringify(attacker.anchor)},"applicationAnchor":${JSON.stringify(victim.anchor)}}`;
    const refused = await establish(
      cx.host.url,
      smuggled,
      await assertion(attacker.client, { iss: attacker.anchor, body: smuggled, iat: T(), exp: T() + 60 }),
    );
    expect([refused.status, refused.text]).toEqual([401, '']);
    expect(await cx.infra.db.inquiry.count({ where: { applicationId: victim.applicationId } })).toBe(0);
    // The signer's anchor last: an inquiry of the signer's own application, nobody else's.
    const own = `{"applicationAnchor":${JSON.stringify(victim.anchor)},"applicationAnchor":${JSON.stringify(attacker.anchor)}}`;
    const res = await establish(
      cx.host.url,
      own,
      await assertion(attacker.client, { iss: attacker.anchor, body: own, iat: T(), exp: T() + 60 }),
    );
    expect([res.status, res.body.applicationAnchor]).toEqual([200, attacker.anchor]);
    expect(await cx.infra.db.inquiry.count({ where: { applicationId: victim.applicationId } })).toBe(0);
    expect(await cx.infra.db.inquiry.count({ where: { applicationId: attacker.applicationId } })).toBe(1);
  });
});

describe('replicas whose clocks differ', () => {
  test('an assertion one replica accepted is a replay on a replica whose clock lags 20 s, after the first would refuse it', async () => {
    const onTime = await startConnect(cx.infra, { clock: () => Date.now() });
    const lagging = await startConnect(cx.infra, { clock: () => Date.now() - 20_000 });
    try {
      const b = await backendWithKey();
      const body = JSON.stringify({ applicationAnchor: b.anchor });
      const now = Math.floor(Date.now() / 1000);
      // Accepted on time: inside the 5 s skew after exp.
      const jws = await assertion(b.client, { iss: b.anchor, body, iat: now - 50, exp: now - 4 });
      expect((await establish(onTime.url, body, jws)).status).toBe(200);
      // Past the last second the on-time replica itself would accept it (and remember its jti for).
      await waitUntil(async () => Date.now() >= (now - 4 + 5 + 2) * 1000, 10_000);
      expect((await establish(onTime.url, body, jws)).status).toBe(401);
      const replay = await establish(lagging.url, body, jws);
      expect([replay.status, replay.text]).toEqual([401, '']);
      expect(await cx.infra.db.inquiry.count({ where: { applicationId: b.applicationId } })).toBe(1);
    } finally {
      await onTime.close();
      await lagging.close();
    }
  });
});
