// Whether a workload session is still authoritative: the workload active at the same generation, its pairwise
// actor subject not rotated away, and the credential that started the session still active. The rule is one SQL
// expression (store/issuance-reads.ts): refresh and the native host embed it in their one read, introspection and
// the profile endpoints ask it alone, here.
import type { Db } from '@svc/db';
import { readWorkloadAuthority } from './store/issuance-reads';

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
  return readWorkloadAuthority(db, {
    ...session,
    workloadId: session.workloadId,
    actorSubject: session.actorSubject,
  });
}
