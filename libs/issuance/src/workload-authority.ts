// Whether a workload session is still authoritative: the workload active at the same generation, its pairwise
// actor subject not rotated away, and the credential that started the session still active. Refresh and
// introspection both apply this one rule.
import type { Db } from '@svc/db';

export interface WorkloadSessionRef {
  workloadId: string | null;
  workloadGeneration: number | null;
  sourceCredentialId: string | null;
  actorSubject: string | null;
}

/** Account sessions are always authoritative here; `presentedActor` is the token's `act.sub`, when there is one. */
export async function workloadAuthoritative(
  db: Db,
  session: WorkloadSessionRef,
  presentedActor?: string,
): Promise<boolean> {
  if (!session.workloadId) return true;
  if (!session.actorSubject || (presentedActor !== undefined && presentedActor !== session.actorSubject))
    return false;
  const [workload, actor] = await Promise.all([
    db.workload.findUnique({ where: { id: session.workloadId }, select: { status: true, generation: true } }),
    db.sectorSubject.findUnique({ where: { subject: session.actorSubject }, select: { retiredAt: true } }),
  ]);
  if (workload?.status !== 'ACTIVE' || workload.generation !== session.workloadGeneration) return false;
  if (!actor || actor.retiredAt) return false;
  if (!session.sourceCredentialId) return true;
  const [ak, pk] = await Promise.all([
    db.accessKey.findFirst({ where: { id: session.sourceCredentialId }, select: { status: true } }),
    db.publicKey.findFirst({ where: { id: session.sourceCredentialId }, select: { status: true } }),
  ]);
  const cred = ak ?? pk;
  return !cred || cred.status === 'ACTIVE';
}
