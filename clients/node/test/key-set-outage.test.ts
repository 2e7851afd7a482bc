// A failing JWK Set host attacked with forged-kid tokens, against a real local HTTP server that counts requests:
// after a failure the SDK waits (1 s, doubling to a ceiling, reset by a success) before asking again, however
// many tokens arrive, and an unknown kid costs at most one refetch per floor.
import { generateKeyPairSync, sign } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createVerifier, TokenVerificationError } from '@signin-service/node';
import { settableClock } from '@svc/testkit';
import { TYP } from '@svc/token-core';

const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const KID = 'rk_outage';
const jwk = { ...publicKey.export({ format: 'jwk' }), kid: KID, use: 'sig', alg: 'RS256' };
const ISSUER = 'https://issuer.test';
const ANCHOR = `outage-${Math.random().toString(36).slice(2)}`;

function token(kid: string, now: number): string {
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const iat = Math.floor(now / 1000);
  const input = `${b64({ alg: 'RS256', kid, typ: TYP.accountAccess })}.${b64({ iss: ISSUER, aud: ANCHOR, sub: 's', sid: 'sid_1', jti: 'j', iat, exp: iat + 3600 })}`;
  return `${input}.${sign('sha256', Buffer.from(input), privateKey).toString('base64url')}`;
}

let server: Server;
let base: string;
const state = { requests: 0, failing: true };

beforeAll(async () => {
  server = createServer((_req, res) => {
    state.requests += 1;
    if (state.failing) {
      res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"down"}');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function verifier(clock: () => number) {
  return createVerifier({ sessionUrl: base, applicationAnchor: ANCHOR, issuer: ISSUER, now: clock });
}

const reason = (p: Promise<unknown>) =>
  p.then(
    () => 'accepted',
    (e: unknown) => (e instanceof TokenVerificationError ? e.reason : String(e)),
  );

test('200 forged-kid tokens against a failing host cost one request, not 200', async () => {
  state.requests = 0;
  state.failing = true;
  // Time stands still (a settable clock, never moved): on a loaded machine 200 verifications can outlast the 1 s
  // back-off on the wall clock, and the claim is about the count within one back-off, not about speed.
  const clock = settableClock();
  const v = verifier(clock);
  const reasons = new Set<string>();
  for (let i = 0; i < 200; i++) reasons.add(await reason(v.verify(token(`forged-${i}`, clock()))));
  expect([...reasons]).toEqual(['KeySetUnavailable']);
  expect(state.requests).toBe(1);
});

test('after failures the wait doubles (1 s, 2 s, 4 s) and a success resets it', async () => {
  state.requests = 0;
  state.failing = true;
  const clock = settableClock();
  const start = clock();
  const v = verifier(clock);
  const at = async (ms: number, kid = 'forged') => {
    clock.set(start + ms);
    const r = await reason(v.verify(token(kid, clock())));
    return [r, state.requests];
  };
  expect(await at(0)).toEqual(['KeySetUnavailable', 1]);
  expect(await at(999)).toEqual(['KeySetUnavailable', 1]);
  expect(await at(1000)).toEqual(['KeySetUnavailable', 2]);
  expect(await at(2999)).toEqual(['KeySetUnavailable', 2]);
  expect(await at(3000)).toEqual(['KeySetUnavailable', 3]);
  expect(await at(6999)).toEqual(['KeySetUnavailable', 3]);
  state.failing = false;
  expect(await at(7000, KID)).toEqual(['accepted', 4]);
  // Recovered: an unknown kid refetches at most once per 1 s floor.
  expect(await at(8000, 'forged-a')).toEqual(['TokenKeyUnknown', 5]);
  expect(await at(8500, 'forged-b')).toEqual(['TokenKeyUnknown', 5]);
  // A new failure starts again at 1 s.
  state.failing = true;
  expect(await at(9000, 'forged-c')).toEqual(['TokenKeyUnknown', 6]);
  expect(await at(9999, 'forged-d')).toEqual(['TokenKeyUnknown', 6]);
  expect(await at(10_000, 'forged-e')).toEqual(['TokenKeyUnknown', 7]);
});
