// verifyBoundAssertion behind its replay-set port: the jti is claimed once per kid, only after every other check
// passed (a refused assertion consumes nothing), for at least the assertion's remaining life.
import { createHash, randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { AssertionError, type BoundAssertionOptions, verifyBoundAssertion } from './bound-assertion';
import type { ReplaySet } from './ports';

const TYP = 'vnd.test.assertion+jwt';
const AUDIENCE = 'test-audience';
const body = Buffer.from('{"a":1}');
const now = 1_800_000_000;

/** A replay set in memory that records every claim. */
function memoryReplay() {
  const seen = new Set<string>();
  const claims: { key: string; ttl: number }[] = [];
  const replay: ReplaySet = {
    async claimOnce(namespace, id, ttlSeconds) {
      const key = `${namespace}:${id}`;
      claims.push({ key, ttl: ttlSeconds });
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    },
  };
  return { replay, claims };
}

async function keyAndSigner() {
  const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  const kid = `tk_${randomBytes(6).toString('hex')}`;
  const jwk = await exportJWK(publicKey);
  const sign = (iat = now, exp = now + 30) =>
    new SignJWT({
      requestHash: createHash('sha256').update(body).digest('base64url'),
      jti: randomBytes(16).toString('base64url'),
    })
      .setProtectedHeader({ alg: 'EdDSA', kid, typ: TYP })
      .setIssuer(kid)
      .setAudience(AUDIENCE)
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .sign(privateKey);
  return { kid, jwk, sign };
}

function options(jws: string, replay: ReplaySet, jwk: object, rawBody = body): BoundAssertionOptions<object> {
  return {
    authorization: `Test ${jws}`,
    scheme: 'Test',
    typ: TYP,
    kidPrefix: 'tk_',
    audience: AUDIENCE,
    rawBody,
    resolveKey: async () => ({ jwk }),
    issuerMatches: (iss, kid) => iss === kid,
    replay,
    replayNamespace: 'test',
    clock: () => now * 1000,
  };
}

const failureOf = (p: Promise<unknown>) =>
  p.then(
    () => 'accepted',
    (err: unknown) => (err instanceof AssertionError ? err.failure : String(err)),
  );

test('an assertion is accepted once; the same jti again is replayed, claimed under the kid', async () => {
  const { kid, jwk, sign } = await keyAndSigner();
  const { replay, claims } = memoryReplay();
  const jws = await sign();
  expect(await failureOf(verifyBoundAssertion(options(jws, replay, jwk)))).toBe('accepted');
  expect(await failureOf(verifyBoundAssertion(options(jws, replay, jwk)))).toBe('replayed');
  expect(claims).toHaveLength(2);
  expect(claims[0]!.key.startsWith(`test:${kid}:`)).toBe(true);
  // Kept past the assertion's exp (30 s from now) on every replica's clock.
  expect(claims[0]!.ttl).toBeGreaterThan(30);
});

test('a refused assertion (other body, expired) consumes no jti: nothing is claimed', async () => {
  const { jwk, sign } = await keyAndSigner();
  const { replay, claims } = memoryReplay();
  const jws = await sign();
  expect(await failureOf(verifyBoundAssertion(options(jws, replay, jwk, Buffer.from('{"a":2}'))))).toBe(
    'invalid',
  );
  const expired = await sign(now - 100, now - 60);
  expect(await failureOf(verifyBoundAssertion(options(expired, replay, jwk)))).toBe('expired');
  expect(claims).toHaveLength(0);
  // The first assertion is still good for its own body.
  expect(await failureOf(verifyBoundAssertion(options(jws, replay, jwk)))).toBe('accepted');
});
