// Whether a workload session is still authoritative: the workload active at the same generation, its pairwise
// actor subject not rotated away, and the credential that started the session still active. One SQL expression
// states the rule; refresh embeds it in its single read, introspection runs it alone.
import { type Db, runPrepared, type Statement } from '@svc/db';

export interface WorkloadSessionRef {
  workloadId: string | null;
  workloadGeneration: number | null;
  sourceCredentialId: string | null;
  actorSubject: string | null;
}

/** The rule over four SQL expressions naming the session's workload, generation, actor subject and credential. */
export function workloadAuthoritySql(c: {
  workloadId: string;
  generation: string;
  actorSubject: string;
  credentialId: string;
}): string {
  return `(${c.workloadId} IS NULL OR (
    EXISTS (SELECT 1 FROM workloads w WHERE w.id = ${c.workloadId} AND w.status = 'ACTIVE'
            AND w.generation = ${c.generation})
    AND EXISTS (SELECT 1 FROM sector_subjects x WHERE x.subject = ${c.actorSubject} AND x.retired_at IS NULL)
    AND (${c.credentialId} IS NULL OR COALESCE(
      (SELECT k.status::text FROM access_keys k WHERE k.id = ${c.credentialId}::uuid),
      (SELECT p.status::text FROM public_keys p WHERE p.id = ${c.credentialId}::uuid),
      'ACTIVE') = 'ACTIVE')))`;
}

const WORKLOAD_AUTHORITY: Statement = {
  name: 'workload_authority_v1',
  text: `SELECT ${workloadAuthoritySql({
    workloadId: '$1::uuid',
    generation: '$2::int',
    actorSubject: '$3::text',
    credentialId: '$4::text',
  })} AS ok`,
};

/** Account sessions are always authoritative here; `presentedActor` is the token's `act.sub`, when there is one. */
export async function workloadAuthoritative(
  db: Db,
  session: WorkloadSessionRef,
  presentedActor?: string,
): Promise<boolean> {
  if (!session.workloadId) return true;
  if (!session.actorSubject || (presentedActor !== undefined && presentedActor !== session.actorSubject))
    return false;
  const [row] = await runPrepared<{ ok: boolean }>(db, WORKLOAD_AUTHORITY, [
    session.workloadId,
    session.workloadGeneration,
    session.actorSubject,
    session.sourceCredentialId,
  ]);
  return row?.ok === true;
}
