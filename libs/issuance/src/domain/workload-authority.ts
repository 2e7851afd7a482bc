// Whether a workload session is still authoritative: the workload active at the same generation, its pairwise
// actor subject not rotated away, and the credential that started the session still active. The rule is one SQL
// expression (store/issuance-reads.ts): refresh and the native host embed it in their one read, introspection and
// the profile endpoints ask it alone, here, through the issuance reads port.
import type { IssuanceReadsPort } from './ports';

export interface WorkloadSessionRef {
  workloadId: string | null;
  workloadGeneration: number | null;
  sourceCredentialId: string | null;
  actorSubject: string | null;
}

/** Account sessions are always authoritative here; `presentedActor` is the token's `act.sub`, when there is one. */
export async function workloadAuthoritative(
  reads: Pick<IssuanceReadsPort, 'readWorkloadAuthority'>,
  session: WorkloadSessionRef,
  presentedActor?: string,
): Promise<boolean> {
  if (!session.workloadId) return true;
  if (!session.actorSubject || (presentedActor !== undefined && presentedActor !== session.actorSubject))
    return false;
  return reads.readWorkloadAuthority({
    ...session,
    workloadId: session.workloadId,
    actorSubject: session.actorSubject,
  });
}
