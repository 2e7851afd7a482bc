// Session /revoke-all: every session of one subject under the calling application, human and workload, revoked.
import { publishSessionChanges } from '@svc/issuance';
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
  const app = await deps.db.application.findUnique({
    where: { id: applicationId },
    select: { sectorId: true },
  });
  const owner = app
    ? await deps.db.sectorSubject.findFirst({
        where: { subject, sectorId: app.sectorId, principalKind: 'ACCOUNT' },
        select: { principalId: true },
      })
    : null;
  if (!owner) return { revoked: true };
  const now = deps.now();
  const sids = await deps.db.$queryRaw<{ id: string }[]>`
    UPDATE sessions SET status = 'REVOKED', revoked_reason = 'revoke_all', revoked_at = ${now}
    WHERE application_id = ${applicationId}::uuid AND account_id = ${owner.principalId}::uuid
      AND status IN ('ACTIVE', 'SUSPENDED')
    RETURNING id`;
  for (const { id } of sids) deps.sessions.evict(id);
  await publishSessionChanges(
    deps.redis,
    sids.map((s) => s.id),
  );
  return { revoked: true };
}
