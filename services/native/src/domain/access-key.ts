// Direct issue with an access key: canonical formats checked before any lookup, the secret's SHA-256 compared
// in constant time (against a dummy hash when the identifier is unknown, so every path does the same work), and
// one opaque AccessKeyDirectDenied for every credential failure.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { ApplicationContext } from '@svc/issuance';
import { ServiceError } from '@svc/platform';
import { type CredentialBinding, credentialAppliesTo } from './issue';
import type { AccessKeyRow, NativeDomain } from './ports';

export const ACCESS_KEY_IDENTIFIER =
  /^acs_k_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
export const ACCESS_KEY_SECRET = /^acs_t_[0-9a-f]{64}$/;

// A hash no secret maps to in practice; compared on the unknown-identifier path to keep the work equal.
const DUMMY_HASH = Buffer.from(createHash('sha256').update('acs_t_unknown-access-key').digest('hex'), 'hex');
const HEX64 = /^[0-9a-f]{64}$/;

export function checkAccessKeyFormats(identifier: string, secret: string): void {
  if (!ACCESS_KEY_IDENTIFIER.test(identifier)) throw new ServiceError('InvalidAccessKeyIdentifier');
  if (!ACCESS_KEY_SECRET.test(secret)) throw new ServiceError('InvalidAccessKeySecret');
}

export const accessKeyDenied = () => new ServiceError('AccessKeyDirectDenied');

function secretMatches(row: AccessKeyRow | null, secret: string): boolean {
  const presented = createHash('sha256').update(secret).digest();
  const stored = row && HEX64.test(row.secretHash) ? Buffer.from(row.secretHash, 'hex') : DUMMY_HASH;
  const equal = timingSafeEqual(presented, stored);
  return row !== null && stored !== DUMMY_HASH && equal;
}

/**
 * Proves the access key for the named application; any failure is the same AccessKeyDirectDenied. The lookup also
 * reads the key's workload and what issuance needs about its principal, so a direct issue reads once.
 */
export async function proveAccessKey(
  { ports, issuance }: NativeDomain,
  app: ApplicationContext,
  identifier: string,
  secret: string,
): Promise<CredentialBinding> {
  const terms = await issuance.terms.current();
  const found = await ports.credentials.findAccessKeyForIssue(identifier, {
    applicationId: app.id,
    sectorId: app.sectorId,
    terms,
  });
  const row = found?.key ?? null;
  const matches = secretMatches(row, secret);
  if (!found || !row || !matches || row.status !== 'ACTIVE' || !credentialAppliesTo(row, app))
    throw accessKeyDenied();
  return {
    app,
    type: 'ACCESS_KEY',
    credentialId: row.id,
    accountId: row.accountId,
    workloadId: row.workloadId,
    workload: found.workload,
    read: found.read,
  };
}
