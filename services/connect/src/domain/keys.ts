// Inquiry keys: 256-bit random bearer values with a readable prefix, stored only as SHA-256 hashes.
export { matchesHash, newKey, sha256Hex } from '@svc/signin';

export const KEY_PREFIX = { exposure: 'iqe_', hidden: 'iqh_', confirmation: 'iqc_' } as const;
