// RSA-2048 signing keys: generation, JWK export (public half only) and import for signing and verification.
import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  randomBytes,
} from 'node:crypto';
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

/** RS256 keys are RSA of at least 2048 bits (RFC 7518 3.3), as jose insisted before signing moved to node:crypto. */
function assertRs256Key(key: KeyObject, type: 'private' | 'public'): KeyObject {
  if (
    key.type !== type ||
    key.asymmetricKeyType !== 'rsa' ||
    (key.asymmetricKeyDetails?.modulusLength ?? 0) < 2048
  ) {
    throw new TypeError(`an RSA ${type} key of at least 2048 bits is required`);
  }
  return key;
}

/** Opens the sealed PKCS#8 PEM into a node:crypto private key; the opened PEM is wiped once parsed. */
export function importSigningKey(kek: Kek, kid: string, privateKeyEnc: string): KeyObject {
  const pem = open(kek, privateKeyEnc, kid);
  try {
    return assertRs256Key(createPrivateKey({ key: pem, format: 'pem' }), 'private');
  } finally {
    pem.fill(0);
  }
}

export function importVerificationKey(jwk: PublicJwk): KeyObject {
  return assertRs256Key(
    createPublicKey({ key: { kty: jwk.kty, n: jwk.n, e: jwk.e }, format: 'jwk' }),
    'public',
  );
}

/** Strips anything but the six published members (defence in depth against leaking private fields). */
export function publicJwkOf(jwk: PublicJwk): PublicJwk {
  return { kty: 'RSA', n: jwk.n, e: jwk.e, kid: jwk.kid, use: 'sig', alg: 'RS256' };
}
