// RSA-2048 signing keys: generation, JWK export (public half only) and import for signing and verification.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { type CryptoKey, importJWK, importPKCS8 } from 'jose';
import { type Kek, open, seal } from './kek';

/** The public JWK exactly as the spec's JWK Set entry: kty, n, e, kid, use, alg. */
export interface PublicJwk {
  kty: 'RSA';
  n: string;
  e: string;
  kid: string;
  use: 'sig';
  alg: 'RS256';
}

export interface GeneratedSigningKey {
  kid: string;
  publicJwk: PublicJwk;
  /** AES-GCM sealed PKCS#8 PEM, bound to the kid. */
  privateKeyEnc: string;
  kekId: string;
}

export function newKid(): string {
  return `rk_${randomBytes(12).toString('base64url')}`;
}

export function generateSigningKey(kek: Kek): GeneratedSigningKey {
  const kid = newKid();
  const { publicKey, privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicExponent: 0x10001,
  });
  const jwk = publicKey.export({ format: 'jwk' });
  const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  return {
    kid,
    publicJwk: { kty: 'RSA', n: String(jwk.n), e: String(jwk.e), kid, use: 'sig', alg: 'RS256' },
    privateKeyEnc: seal(kek, pem, kid),
    kekId: kek.id,
  };
}

export async function importSigningKey(kek: Kek, kid: string, privateKeyEnc: string): Promise<CryptoKey> {
  const pem = open(kek, privateKeyEnc, kid).toString('utf8');
  return importPKCS8(pem, 'RS256');
}

export async function importVerificationKey(jwk: PublicJwk): Promise<CryptoKey> {
  return (await importJWK({ kty: jwk.kty, n: jwk.n, e: jwk.e }, 'RS256')) as CryptoKey;
}

/** Strips anything but the six published members (defence in depth against leaking private fields). */
export function publicJwkOf(jwk: PublicJwk): PublicJwk {
  return { kty: 'RSA', n: jwk.n, e: jwk.e, kid: jwk.kid, use: 'sig', alg: 'RS256' };
}
