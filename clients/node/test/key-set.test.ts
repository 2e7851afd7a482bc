// The key-set cache's rules against a stand-in JWK Set answer (the exact Cache-Control and outages a host could
// send): max-age honoured and capped at 300 s, no-store kept only for the 1 s floor, a failed refetch falling back
// to the last set for at most 300 s after its fetch, and the URL built from configuration alone.
import { generateKeyPairSync, sign } from 'node:crypto';
import { createVerifier, TokenVerificationError } from '@signin-service/node';
import { settableClock } from '@svc/testkit';
import { TYP } from '@svc/token-core';

const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const KID = 'rk_standin';
const jwk = { ...publicKey.export({ format: 'jwk' }), kid: KID, use: 'sig', alg: 'RS256' };
const ISSUER = 'https://issuer.test';
const ANCHOR = 'standin-app';

function token(claims: Record<string, unknown> = {}, now = Date.now()): string {
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const iat = Math.floor(now / 1000);
  const input = `${b64({ alg: 'RS256', kid: KID, typ: TYP.accountAccess })}.${b64({ iss: ISSUER, aud: ANCHOR, sub: 'sub-1', sid: 'sid_1', jti: 'j', iat, exp: iat + 3600, ...claims })}`;
  return `${input}.${sign('sha256', Buffer.from(input), privateKey).toString('base64url')}`;
}

function standIn(cacheControl: string | null) {
  const state = { urls: [] as string[], down: false };
  return {
    state,
    fetch: async (url: string) => {
      state.urls.push(url);
      if (state.down) throw new TypeError('fetch failed');
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (cacheControl) headers['cache-control'] = cacheControl;
      return new Response(JSON.stringify({ keys: [jwk] }), { headers });
    },
  };
}

function verifierWith(cacheControl: string | null, clock = settableClock()) {
  const server = standIn(cacheControl);
  const verifier = createVerifier({
    sessionUrl: 'https://session.test/',
    applicationAnchor: ANCHOR,
    issuer: ISSUER,
    fetch: server.fetch,
    now: clock,
  });
  return { verifier, server, clock };
}

/** Verifies a fresh token at each instant (ms after the start); how many fetches had been made after each. */
async function fetchesAt(cacheControl: string | null, instants: number[]): Promise<number[]> {
  const { verifier, server, clock } = verifierWith(cacheControl);
  const start = clock();
  const counts: number[] = [];
  for (const at of instants) {
    clock.set(start + at);
    await verifier.verify(token({}, clock()));
    counts.push(server.state.urls.length);
  }
  return counts;
}

test('the set is fetched from the configured origin and anchor only', async () => {
  const { verifier, server, clock } = verifierWith('public, max-age=120');
  await verifier.verify(token({}, clock()));
  expect(server.state.urls).toEqual([`https://session.test/applications/${ANCHOR}/jwks.json`]);
});

test('the set is kept for max-age', async () => {
  expect(await fetchesAt('public, max-age=120', [0, 119_000, 120_000])).toEqual([1, 1, 2]);
});

test('a max-age beyond 300 s is capped at 300 s (the spec bound after an emergency revocation)', async () => {
  expect(await fetchesAt('public, max-age=86400', [0, 299_000, 300_000])).toEqual([1, 1, 2]);
});

test('no-store or no Cache-Control: kept only for the 1 s floor', async () => {
  expect(await fetchesAt('no-store', [0, 0, 1000])).toEqual([1, 1, 2]);
  expect(await fetchesAt(null, [0, 999, 1000])).toEqual([1, 1, 2]);
});

test('a failed refetch keeps the last set up to 300 s after its fetch, then refuses as KeySetUnavailable', async () => {
  const { verifier, server, clock } = verifierWith('max-age=60');
  await verifier.verify(token({}, clock()));
  server.state.down = true;
  clock.advance(61_000);
  expect((await verifier.verify(token({}, clock()))).sub).toBe('sub-1');
  clock.advance(239_000);
  const err = await verifier.verify(token({}, clock())).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(TokenVerificationError);
  expect((err as TokenVerificationError).reason).toBe('KeySetUnavailable');
});

test('checks run on the claims with the configured leeway', async () => {
  const { verifier, clock } = verifierWith('max-age=60');
  const now = Math.floor(clock() / 1000);
  const reason = (t: string) =>
    verifier.verify(t).then(
      () => 'accepted',
      (e: TokenVerificationError) => e.reason,
    );
  expect(await reason(token({ exp: now - 4 }, clock()))).toBe('accepted');
  expect(await reason(token({ exp: now - 5 }, clock()))).toBe('TokenExpired');
  expect(await reason(token({ iss: 'https://other.test' }, clock()))).toBe('TokenClaimsInvalid');
  expect(await reason(token({ aud: [ANCHOR] }, clock()))).toBe('TokenMalformed');
  expect(await reason(token({ nbf: now + 60 }, clock()))).toBe('TokenClaimsInvalid');
  expect(await reason(token({ act: { sub: 'x' } }, clock()))).toBe('TokenClaimsInvalid');
  expect(await reason(token({ sub: '' }, clock()))).toBe('TokenClaimsInvalid');
});
