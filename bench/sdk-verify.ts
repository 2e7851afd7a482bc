// The application SDK's `verify` on a cached key set (target < 0.1 ms a token): a real RSA-2048 account token
// verified again and again by @signin-service/node after its key set was fetched once, so each figure is the
// parse, the header and claim checks and the RS256 signature check, with no network.
import { generateKeyPairSync, sign } from 'node:crypto';
import { createVerifier } from '@signin-service/node';

const ITERATIONS = Number(process.env.BENCH_SDK_VERIFY_ITERATIONS ?? 20_000);

export interface SdkVerifyFigures {
  iterations: number;
  meanMs: number;
  p99Ms: number;
  keySetFetches: number;
}

export async function benchSdkVerify(): Promise<SdkVerifyFigures> {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = { ...publicKey.export({ format: 'jwk' }), kid: 'rk_bench', use: 'sig', alg: 'RS256' };
  let keySetFetches = 0;
  const verifier = createVerifier({
    sessionUrl: 'https://session.bench',
    applicationAnchor: 'bench-app',
    issuer: 'https://issuer.bench',
    fetch: async () => {
      keySetFetches += 1;
      return Response.json({ keys: [jwk] }, { headers: { 'cache-control': 'public, max-age=300' } });
    },
  });
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  const input = `${b64({ alg: 'RS256', kid: 'rk_bench', typ: 'vnd.service.application-access+jwt' })}.${b64({ iss: 'https://issuer.bench', aud: 'bench-app', sub: 'sub', sid: 'sid_x', jti: 'jti', iat: now, exp: now + 3600 })}`;
  const token = `${input}.${sign('sha256', Buffer.from(input), privateKey).toString('base64url')}`;
  for (let i = 0; i < 2000; i++) await verifier.verify(token);
  const samples = new Float64Array(ITERATIONS);
  const started = process.hrtime.bigint();
  for (let i = 0; i < ITERATIONS; i++) {
    const t0 = process.hrtime.bigint();
    await verifier.verify(token);
    samples[i] = Number(process.hrtime.bigint() - t0) / 1e6;
  }
  const meanMs = Number(process.hrtime.bigint() - started) / 1e6 / ITERATIONS;
  const p99Ms = [...samples].sort((a, b) => a - b)[Math.floor(ITERATIONS * 0.99)]!;
  console.log(
    `sdk verify (cached set): mean ${(meanMs * 1000).toFixed(1)} µs, p99 ${(p99Ms * 1000).toFixed(1)} µs over ${ITERATIONS} tokens (target < 100 µs); ${keySetFetches} key-set fetch`,
  );
  return { iterations: ITERATIONS, meanMs, p99Ms, keySetFetches };
}
