// The live status of a session as the spec names it (active, revoked, expired, not_found), including the
// authority of workload sessions.
import type { Db } from '@svc/db';
import type { CachedSession } from '../store/session-cache';

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

/**
 * A workload session stays authoritative only while its workload is active at the same generation, its actor
 * subject is still the workload's current subject, and the credential that started it is still active.
 */
export async function workloadAuthoritative(
  db: Db,
  session: CachedSession,
  actorSubject: string,
): Promise<boolean> {
  if (!session.workloadId) return true;
  if (session.actorSubject !== actorSubject) return false;
  const [workload, subject] = await Promise.all([
    db.workload.findUnique({ where: { id: session.workloadId }, select: { status: true, generation: true } }),
    db.sectorSubject.findUnique({ where: { subject: actorSubject }, select: { retiredAt: true } }),
  ]);
  if (workload?.status !== 'ACTIVE' || workload.generation !== session.workloadGeneration) return false;
  if (!subject || subject.retiredAt) return false;
  if (session.sourceCredentialId) {
    const [ak, pk] = await Promise.all([
      db.accessKey.findUnique({ where: { id: session.sourceCredentialId }, select: { status: true } }),
      db.publicKey.findUnique({ where: { id: session.sourceCredentialId }, select: { status: true } }),
    ]);
    const cred = ak ?? pk;
    if (cred && cred.status !== 'ACTIVE') return false;
  }
  return true;
}
