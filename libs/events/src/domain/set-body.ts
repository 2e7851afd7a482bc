// The body builder of a security-event row: the SET's claims (set-claims.ts) signed RS256 under the application's
// own active key, with header typ secevent+jwt, so it verifies against the application's JWK Set.
import { type Signer, signJws } from '@svc/token-core';
import { SET_TYP } from './event-types';
import type { BodyBuilder, ClaimedRow } from './ports';
import { type SecurityEventPayload, setClaims } from './set-claims';

export function securityEventBody(c: {
  issuer: string;
  /** The application's active signer (the key ring's, cached). */
  signerOf(applicationId: string): Promise<Signer | undefined>;
}): BodyBuilder {
  return async (row: ClaimedRow) => {
    if (!row.applicationId || !row.applicationAnchor) throw new Error('the event has no application');
    const signer = await c.signerOf(row.applicationId);
    if (!signer) throw new Error('the application has no active signing key');
    const claims = setClaims(
      {
        id: row.id,
        payload: row.payload as SecurityEventPayload,
        txn: row.txn,
        createdAt: row.createdAt,
      },
      { issuer: c.issuer, audience: row.applicationAnchor },
    );
    return signJws(signer, SET_TYP, JSON.stringify(claims));
  };
}
