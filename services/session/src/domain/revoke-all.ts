// Session /revoke-all: every session of one subject under the calling application, human and workload, revoked.
import type { SessionDomainDeps } from './ports';

/**
 * Unknown and out-of-scope subjects get the same acknowledgement, so the answer reveals nothing about which
 * subjects exist. Old (rotated) generations of the subject are honoured too, since sessions keep the subject they
 * were issued under.
 */
export async function revokeAll(
  deps: SessionDomainDeps,
  applicationId: string,
  subject: string,
): Promise<{ revoked: true }> {
  const { sessions, sessionCache, sessionEvents, sectorSubjects } = deps.ports;
  const accountId = await sectorSubjects.accountBehindSubject(applicationId, subject);
  if (!accountId) return { revoked: true };
  const sids = await sessions.revokeAccountSessions(
    applicationId,
    accountId,
    'revoke_all',
    new Date(deps.clock()),
  );
  for (const sid of sids) sessionCache.evict(sid);
  await sessionEvents.publishSessionChanges(sids);
  return { revoked: true };
}
