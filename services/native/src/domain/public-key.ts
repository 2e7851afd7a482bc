// Direct issue with a public key: the EdDSA assertion of the spec in `Authorization: PublicKey <jws>`, verified
// by libs/client-auth (exact header and claims, iss = kid, <= 60 s, requestHash, single-use jti in Redis). The
// key's applicability to the named application is part of the proof. Unknown kids are verified against a
// throwaway key so no answer (or its timing) tells whether a kid exists; every rejection is
// PublicKeyDirectDenied, except a replayed jti, which asks the client to sign a fresh assertion.
import { generateKeyPairSync } from 'node:crypto';
import { AssertionError, verifyBoundAssertion } from '@svc/client-auth';
import type { ApplicationContext } from '@svc/issuance';
import { ServiceError } from '@svc/platform';
import { AUDIENCE, TYP } from '@svc/token-core';
import type { JWK } from 'jose';
import { type CredentialBinding, credentialAppliesTo } from './issue';
import type { CredentialForIssue, NativeDomain, PublicKeyRow } from './ports';

export const PUBLIC_KEY_SCHEME = 'PublicKey';
const DUMMY_JWK = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }) as JWK;

export const publicKeyDenied = (cause?: unknown) =>
  new ServiceError('PublicKeyDirectDenied', {
    headers: { 'WWW-Authenticate': `${PUBLIC_KEY_SCHEME} error="invalid_token"` },
    cause,
  });

export const assertionReplayed = () => new ServiceError('PublicKeyAssertionReplayed');

export async function provePublicKeyAssertion(
  { ports, issuance }: NativeDomain,
  app: ApplicationContext,
  req: { authorization: string | undefined; rawBody: Buffer },
): Promise<CredentialBinding> {
  const terms = await issuance.terms.current();
  try {
    const { key } = await verifyBoundAssertion<{ found: CredentialForIssue<PublicKeyRow> | null }>({
      authorization: req.authorization,
      scheme: PUBLIC_KEY_SCHEME,
      typ: TYP.publicKeyAssertion,
      kidPrefix: 'pky_',
      audience: AUDIENCE.nativePublicKey,
      rawBody: req.rawBody,
      replay: ports.assertionReplay,
      replayNamespace: 'public-key',
      maxLifetimeSeconds: 60,
      clock: issuance.clock,
      // The key, its workload and its principal's issue read, in one statement.
      async resolveKey(kid) {
        const found = await ports.credentials.findPublicKeyForIssue(kid, {
          applicationId: app.id,
          sectorId: app.sectorId,
          terms,
        });
        return found ? { found, jwk: found.key.jwk } : { found: null, jwk: DUMMY_JWK };
      },
      // Checked before the jti is consumed: a key that is revoked or not applicable to this application
      // proves nothing here.
      issuerMatches: (iss, kid, { found }) =>
        iss === kid && found !== null && found.key.status === 'ACTIVE' && credentialAppliesTo(found.key, app),
    });
    const { key: row, workload, read } = key.found!;
    return {
      app,
      type: 'PUBLIC_KEY',
      credentialId: row.id,
      accountId: row.accountId,
      workloadId: row.workloadId,
      workload,
      read,
    };
  } catch (err) {
    if (err instanceof AssertionError)
      throw err.failure === 'replayed' ? assertionReplayed() : publicKeyDenied(err);
    throw err;
  }
}
