// Session /revoke-all: every session of one subject under the calling application, human and workload, revoked.
import { accountBehindSubject, publishSessionChanges, revokeAccountSessions } from '@svc/issuance';
import type { SessionDeps } from '../deps';

/**
 * Unknown and out-of-scope subjects get the same acknowledgement, so the answer reveals nothing about which
 * subjects exist. Old (rotated) generations of the subject are honoured too, since sessions keep the subject they
 * were issued under.
 */
export async function revokeAll(
  deps: SessionDeps,
  applicationId: string,
  subject: string,
): Promise<{ revoked: true }> {
  const accountId = await accountBehindSubject(deps.db, applicationId, subject);
  if (!accountId) return { revoked: true };
  const sids = await revokeAccountSessions(
    deps.db,
    applicationId,
    accountId,
    'revoke_all',
    new Date(deps.clock()),
  );
  for (const sid of sids) deps.sessions.evict(sid);
  await publishSessionChanges(deps.redis, sids);
  return { revoked: true };
}
