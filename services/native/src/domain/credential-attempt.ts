// One credential attempt of direct issue (access key or public key): both rate limits (per client address and per
// credential, one pipelined round trip), then the proof, counted in credential_attempts_total by how it was decided:
// `accepted` when the proof returns, `rejected` for the credential's own refusals, `limited` for TooManyAttempts.
// Per-address and per-credential limits cannot see guesses spread over many addresses and keys; the fleet-wide count
// can (deploy/observability's alerts). An unknown application or a dependency failure is not counted.
import { type CredentialKind, countCredentialAttempt, type Reason, ServiceError } from '@svc/platform';
import type { CredentialLimits, NativeDomain } from './ports';

/** The refusals that are the credential's own, counted `rejected` (anything else about the request is not). */
const REFUSED: Record<'access_key' | 'public_key', readonly Reason[]> = {
  access_key: ['InvalidAccessKeyIdentifier', 'InvalidAccessKeySecret', 'AccessKeyDirectDenied'],
  public_key: ['PublicKeyDirectDenied', 'PublicKeyAssertionReplayed'],
};

/** Both limits count the attempt; they are consumed together in one pipelined round trip. */
export async function consumeLimits(
  limits: CredentialLimits,
  address: string,
  credential: string | undefined,
): Promise<void> {
  await Promise.all([
    limits.address.consume(address),
    credential ? limits.credential.consume(credential) : undefined,
  ]);
}

export async function countedAttempt<T>(
  d: NativeDomain,
  kind: CredentialKind & keyof typeof REFUSED,
  attempt: () => Promise<T>,
): Promise<T> {
  try {
    const proven = await attempt();
    countCredentialAttempt(d.metrics, kind, 'accepted');
    return proven;
  } catch (err) {
    if (err instanceof ServiceError) {
      if (err.reason === 'TooManyAttempts') countCredentialAttempt(d.metrics, kind, 'limited');
      else if (REFUSED[kind].includes(err.reason)) countCredentialAttempt(d.metrics, kind, 'rejected');
    }
    throw err;
  }
}
