// The two codes of a device authorization: the device code (`dvc_` + 64 lowercase hex from 256 random bits, a
// bearer secret stored only as its SHA-256) and the user code (two groups of 4 from a 32-symbol alphabet that has
// no I, L, O or U, so what a person reads off a TV cannot be misread), with the folding of typed entries.
import { createHash, randomBytes } from 'node:crypto';

export const DEVICE_CODE_PATTERN = /^dvc_[0-9a-f]{64}$/;
/**
 * The OIDC host's device codes (RFC 8628 `device_code`): another prefix, so a code of one wire is malformed on the
 * other and never redeems there.
 */
export const OIDC_DEVICE_CODE_PATTERN = /^odc_[0-9a-f]{64}$/;
export type DeviceCodePrefix = 'dvc_' | 'odc_';

/** 0-9 and A-Z without I, L, O, U: 32 symbols, so 5 bits of a random byte pick one without bias. */
export const USER_CODE_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

export function newDeviceCode(prefix: DeviceCodePrefix = 'dvc_'): string {
  return `${prefix}${randomBytes(32).toString('hex')}`;
}

export function deviceCodeHash(deviceCode: string): string {
  return createHash('sha256').update(deviceCode).digest('hex');
}

/** A fresh user code, `XXXX-XXXX` (40 random bits). */
export function newUserCode(): string {
  const bytes = randomBytes(8);
  let code = '';
  for (let i = 0; i < 8; i++) {
    if (i === 4) code += '-';
    code += USER_CODE_ALPHABET[bytes[i]! & 31];
  }
  return code;
}

const FOLDS: Record<string, string> = { O: '0', I: '1', L: '1' };

/**
 * A typed user code in its stored form (`XXXX-XXXX`), or undefined when it cannot be one: case, spaces and hyphens
 * are ignored, and O folds to 0, I and L to 1 (the alphabet never uses them, and people type them for 0 and 1).
 * Anything else outside the alphabet, or a length other than 8, is malformed.
 */
export function normalizeUserCode(input: string): string | undefined {
  if (input.length > 64) return undefined;
  const compact = input
    .toUpperCase()
    .replace(/[\s\-\u2010-\u2015\u2212]/g, '')
    .replace(/[OIL]/g, (c) => FOLDS[c]!);
  if (compact.length !== 8) return undefined;
  for (const c of compact) if (!USER_CODE_ALPHABET.includes(c)) return undefined;
  return `${compact.slice(0, 4)}-${compact.slice(4)}`;
}
