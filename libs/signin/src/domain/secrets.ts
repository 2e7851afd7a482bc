// Random bearer values and their SHA-256 hashes: CSRF tokens, emailed codes' hashes, constant-time comparison.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** 256 random bits, base64url, after a readable prefix. */
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

/** Constant-time equality of two strings (different lengths are unequal). */
export function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
