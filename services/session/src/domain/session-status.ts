// The live status of a session as the spec names it (active, revoked, expired, not_found), including the
// authority of workload sessions.
import type { CachedSession } from './ports';

export type IntrospectionStatus = 'active' | 'revoked' | 'expired' | 'not_found';

export function statusOf(session: CachedSession | null, now: Date): IntrospectionStatus {
  if (!session) return 'not_found';
  switch (session.status) {
    case 'ACTIVE':
      return session.expiresAt > now ? 'active' : 'expired';
    case 'EXPIRED':
      return 'expired';
    // A suspended session is not usable: applications treat it as revoked until it is resumed.
    case 'SUSPENDED':
    case 'REVOKED':
      return 'revoked';
  }
}
