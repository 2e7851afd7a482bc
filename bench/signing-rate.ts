// Measures the machine's RSA-2048 RS256 signing rate along the service's own path (token-core's mintAccessToken:
// node:crypto's async sign with a KeyObject, on libuv's thread pool, so it can use every core), plus, for
// reference, the path the service took before (jose's CompactSign over WebCrypto, also on the pool, same claims
// and concurrency) and single-threaded synchronous node:crypto.
import { generateKeyPairSync, sign } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { mintAccessToken } from '@svc/token-core';
import { CompactSign, importPKCS8 } from 'jose';

export interface SigningRate {
  /** token-core's mintAccessToken, all cores: the rate the signing bound is taken from. */
  servicePerSec: number;
  /** jose CompactSign + WebCrypto over the same claims JSON, all cores; measured only when asked for. */
  joseWebCryptoPerSec?: number;
  /** The single-threaded node:crypto reference; measured only when asked for. */
  nodeSyncPerSec?: number;
}

/** Signatures per second over `seconds` with many signatures in flight (enough to keep the pool busy). */
async function parallelRate(seconds: number, sign1: () => Promise<unknown>): Promise<number> {
  const inFlight = Math.max(4, availableParallelism() * 4);
  let count = 0;
  const until = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (Date.now() < until) {
        await sign1();
        count++;
      }
    }),
  );
  return count / seconds;
}

export async function measureSigningRate(
  seconds = 2,
  opts: { withReference?: boolean } = {},
): Promise<SigningRate> {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const signer = { kid: 'k', key: privateKey };
  const iat = Math.floor(Date.now() / 1000);
  const input = {
    issuer: 'https://issuer.test',
    audience: 'bench-app',
    sid: 'sid_x',
    iat,
    subject: 'ss_x',
    ttlSeconds: 600,
  };
  const servicePerSec = await parallelRate(seconds, () => mintAccessToken(signer, input));
  if (!opts.withReference) return { servicePerSec };

  // The former path, kept as a reference so the change stays visible: the same header and claims through jose.
  const cryptoKey = await importPKCS8(
    privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    'RS256',
  );
  const claims = new TextEncoder().encode(
    JSON.stringify({
      sub: 'ss_x',
      iss: input.issuer,
      aud: input.audience,
      sid: 'sid_x',
      jti: 'j',
      iat,
      exp: iat + 600,
    }),
  );
  const joseWebCryptoPerSec = await parallelRate(seconds, () =>
    new CompactSign(claims).setProtectedHeader({ alg: 'RS256', kid: 'k', typ: 'JWT' }).sign(cryptoKey),
  );

  let n = 0;
  const data = Buffer.from('header.payload');
  const end = Date.now() + seconds * 1000;
  while (Date.now() < end) {
    sign('sha256', data, privateKey);
    n++;
  }
  return { servicePerSec, joseWebCryptoPerSec, nodeSyncPerSec: n / seconds };
}
