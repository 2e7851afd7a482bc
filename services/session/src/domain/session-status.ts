// The live status of a session as the spec names it (active, revoked, expired, not_found), including the
// authority of its account; the authority of workload sessions is introspection's second step (introspect.ts).
import { sessionAuthorityMoved } from '@svc/issuance';
import type { CachedSession } from './ports';

export type IntrospectionStatus = 'active' | 'revoked' | 'expired' | 'not_found';

/**
 * Whether the account authority the session stood on is gone: the account is no longer ACTIVE (refresh answers
 * AccountDisabled or AccountDeleted), or it is ACTIVE under another authority version than the session was issued
 * under (a passkey removed, a status change and back, an SSO link: refresh answers AuthorizationArtifactStale and
 * revokes the family). Neither comes back: re-enabling an account moves its version again. Read with the session
 * row, so it holds even where the change's own revocation never reached the row.
 */
export function accountAuthorityLapsed(session: CachedSession): boolean {
  return (
    session.account?.status !== 'ACTIVE' || sessionAuthorityMoved(session.authorityVersion, session.account)
  );
}

export function statusOf(session: CachedSession | null, now: Date): IntrospectionStatus {
  if (!session) return 'not_found';
  switch (session.status) {
    case 'ACTIVE':
      if (session.expiresAt <= now) return 'expired';
      // What the session's refresh would make of it, and what its row becomes once that refresh or the change's
      // revocation runs: revoked.
      return accountAuthorityLapsed(session) ? 'revoked' : 'active';
    case 'EXPIRED':
      return 'expired';
    // A suspended session is not usable: applications treat it as revoked until it is resumed.
    case 'SUSPENDED':
    case 'REVOKED':
      return 'revoked';
  }
}
