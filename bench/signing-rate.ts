// Measures the machine's RSA-2048 RS256 signing rate along the service's own path (token-core's mintAccessToken:
// jose + WebCrypto, which signs on libuv's thread pool and so can use every core), plus single-threaded node:crypto
// for reference.
import { generateKeyPairSync, sign } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { mintAccessToken } from '@svc/token-core';
import { importPKCS8 } from 'jose';

export interface SigningRate {
  joseParallelPerSec: number;
  /** The single-threaded node:crypto reference; measured only when asked for. */
  nodeSyncPerSec?: number;
}

export async function measureSigningRate(
  seconds = 2,
  opts: { withReference?: boolean } = {},
): Promise<SigningRate> {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  const key = await importPKCS8(pem, 'RS256');
  const signer = { kid: 'k', key };
  const iat = Math.floor(Date.now() / 1000);
  const sign1 = () =>
    mintAccessToken(signer, {
      issuer: 'https://issuer.test',
      audience: 'bench-app',
      sid: 'sid_x',
      iat,
      subject: 'ss_x',
      ttlSeconds: 600,
    });

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
  const joseParallelPerSec = count / seconds;
  if (!opts.withReference) return { joseParallelPerSec };

  let n = 0;
  const data = Buffer.from('header.payload');
  const end = Date.now() + seconds * 1000;
  while (Date.now() < end) {
    sign('sha256', data, privateKey);
    n++;
  }
  return { joseParallelPerSec, nodeSyncPerSec: n / seconds };
}
