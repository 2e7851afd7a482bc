// Key-encryption key (KEK): seals private signing keys and other secrets at rest (AES-256-GCM).
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

export interface Kek {
  /** Short fingerprint of the key, stored beside each sealed value so a KEK rotation can find old ciphertexts. */
  id: string;
  key: Buffer;
  /**
   * Keys that only open (KEY_ENCRYPTION_KEYS_PREVIOUS): values sealed under them still open, nothing new is
   * sealed or MACed under them. Empty outside a KEK rotation.
   */
  previous: readonly Kek[];
}

function fingerprint(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 16);
}

/**
 * The KEK over its 32 bytes (a process's configuration reads them from KEY_ENCRYPTION_KEY), with the keys that
 * still open what was sealed before a rotation (KEY_ENCRYPTION_KEYS_PREVIOUS).
 */
export function kekFromBytes(key: Buffer, previous: readonly Buffer[] = []): Kek {
  const id = fingerprint(key);
  return {
    id,
    key,
    previous: previous.map((k) => ({ id: fingerprint(k), key: k, previous: [] })).filter((k) => k.id !== id),
  };
}

/** The KEK and each previous one, current first: what opening and MAC checks try, in order. */
export function keysThatOpen(kek: Kek): readonly Kek[] {
  return [kek, ...kek.previous];
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

/**
 * Opens a value sealed under the KEK or any previous key (AES-GCM's tag tells a wrong key apart); throws when none
 * opens it.
 */
export function open(kek: Kek, sealed: string, aad = ''): Buffer {
  return openWithId(kek, sealed, aad).plaintext;
}

/** Like `open`, also naming the key that opened it (a reseal rewrites what a previous key opened). */
export function openWithId(kek: Kek, sealed: string, aad = ''): { plaintext: Buffer; kekId: string } {
  const [v, iv, tag, body] = sealed.split('.');
  if (v !== 'v1' || !iv || !tag || body === undefined) throw new Error('sealed value has an unknown format');
  let failure: unknown;
  for (const candidate of keysThatOpen(kek)) {
    try {
      const decipher = createDecipheriv('aes-256-gcm', candidate.key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(aad));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      const plaintext = Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]);
      return { plaintext, kekId: candidate.id };
    } catch (err) {
      failure = err;
    }
  }
  throw failure;
}
