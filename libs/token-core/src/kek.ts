// Key-encryption key (KEK): seals private signing keys and other secrets at rest (AES-256-GCM).
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

export interface Kek {
  /** Short fingerprint of the key, stored beside each sealed value so a KEK rotation can find old ciphertexts. */
  id: string;
  key: Buffer;
}

/** The KEK over its 32 bytes (a process's configuration reads them from KEY_ENCRYPTION_KEY). */
export function kekFromBytes(key: Buffer): Kek {
  return { id: createHash('sha256').update(key).digest('hex').slice(0, 16), key };
}

/** Seals plaintext as `v1.<iv>.<tag>.<ciphertext>` (base64url parts); `aad` binds the value to its owner. */
export function seal(kek: Kek, plaintext: string | Buffer, aad = ''): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', kek.key, iv);
  cipher.setAAD(Buffer.from(aad));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return [
    'v1',
    iv.toString('base64url'),
    cipher.getAuthTag().toString('base64url'),
    body.toString('base64url'),
  ].join('.');
}

export function open(kek: Kek, sealed: string, aad = ''): Buffer {
  const [v, iv, tag, body] = sealed.split('.');
  if (v !== 'v1' || !iv || !tag || body === undefined) throw new Error('sealed value has an unknown format');
  const decipher = createDecipheriv('aes-256-gcm', kek.key, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(aad));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]);
}
