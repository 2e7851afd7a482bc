// Inquiry keys: 256-bit random bearer values with a readable prefix, stored only as SHA-256 hashes.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const KEY_PREFIX = { exposure: 'iqe_', hidden: 'iqh_', confirmation: 'iqc_' } as const;

export function newKey(prefix: string): string {
  return `${prefix}${randomBytes(32).toString('base64url')}`;
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** Constant-time comparison of a presented secret against a stored SHA-256 hex hash. */
export function matchesHash(presented: string, storedHash: string | null | undefined): boolean {
  const a = Buffer.from(sha256Hex(presented), 'hex');
  const b = Buffer.from(storedHash ?? '', 'hex');
  if (b.length !== a.length) {
    timingSafeEqual(a, a);
    return false;
  }
  return timingSafeEqual(a, b);
}
